// Names → codes, for imports whose sources carry names (GA4: "Germany", "Bavaria",
// "Munich"). Case, accents and punctuation are ignored; unknown names give undefined.
import { geoData } from './geo-data.js';
import { nameKey } from './name-key.js';

/** Longer than any real place name; anything longer is refused without work. */
const MAX_NAME_LENGTH = 200;

function key(name: string): string | undefined {
  if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH) return undefined;
  const k = nameKey(name);
  return k === '' ? undefined : k;
}

/** `"Germany"` → `"DE"`; also ISO list spellings and GA4 spellings ("Czechia", "Türkiye"). */
export function countryCodeByName(name: string): string | undefined {
  const k = key(name);
  return k === undefined ? undefined : geoData().countryByName.get(k);
}

/** `("DE", "Bavaria")` → `"DE-BY"`; English (DB-IP) and local (ISO) names both work. */
export function regionCodeByName(country: string, name: string): string | undefined {
  const k = key(name);
  return k === undefined ? undefined : geoData().regionByName.get(`${country}\t${k}`);
}

/**
 * `("DE", "Berlin")` → `2950159`. Several cities of one name: the one in `region`
 * (an ISO 3166-2 code) when given, else the most populous.
 */
export function cityIdByName(country: string, name: string, region?: string): number | undefined {
  const k = key(name);
  if (k === undefined) return undefined;
  const cities = geoData().citiesNamed(country, k);
  const city = region ? cities.find((c) => c[3] === region) : cities[0];
  return city?.[0];
}
