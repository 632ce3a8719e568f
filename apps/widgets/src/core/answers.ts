/**
 * The data endpoint's answers (GET /api/v1/widgets/{type}), checked field by field:
 * a value of the wrong type, or a list longer than the contract allows, is dropped
 * rather than drawn. Every string is later set as text, never as markup.
 */
export interface CountryRow {
  code: string;
  name: string;
  visitors: number;
  share: number;
}
export interface LiveUsersAnswer {
  visitors: number;
  sparkline: Array<{ t: string; visitors: number }>;
}
export interface CountriesAnswer {
  window: string;
  visitors: number;
  countries: CountryRow[];
}
export interface GlobeAnswer {
  visitors: number;
  locations: Array<{ lat: number; lon: number; visitors: number }>;
  countries: CountryRow[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
const text = (v: unknown, max: number): string | null => (typeof v === 'string' && v.length <= max ? v : null);
function list<T>(v: unknown, max: number, item: (x: unknown) => T | null): T[] | null {
  if (!Array.isArray(v)) return null;
  const out: T[] = [];
  for (const x of v.slice(0, max)) {
    const parsed = item(x);
    if (parsed !== null) out.push(parsed);
  }
  return out;
}

function countryRow(v: unknown): CountryRow | null {
  if (!isObject(v)) return null;
  const code = text(v['code'], 2);
  const visitors = count(v['visitors']);
  const share = count(v['share']);
  if (code === null || !/^[A-Z]{2}$/.test(code) || visitors === null || share === null) return null;
  return { code, name: text(v['name'], 100) ?? code, visitors, share };
}

export function parseLiveUsers(v: unknown): LiveUsersAnswer | null {
  if (!isObject(v)) return null;
  const visitors = count(v['visitors']);
  const sparkline = list(v['sparkline'], 60, (p) => {
    if (!isObject(p)) return null;
    const t = text(p['t'], 30);
    const n = count(p['visitors']);
    return t === null || n === null ? null : { t, visitors: n };
  });
  return visitors === null ? null : { visitors, sparkline: sparkline ?? [] };
}

export function parseCountries(v: unknown): CountriesAnswer | null {
  if (!isObject(v)) return null;
  const visitors = count(v['visitors']);
  const countries = list(v['countries'], 300, countryRow);
  return visitors === null || countries === null ? null : { window: text(v['window'], 10) ?? '', visitors, countries };
}

export function parseGlobe(v: unknown): GlobeAnswer | null {
  if (!isObject(v)) return null;
  const visitors = count(v['visitors']);
  const locations = list(v['locations'], 2000, (p) => {
    if (!isObject(p)) return null;
    const lat = p['lat'];
    const lon = p['lon'];
    const n = count(p['visitors']);
    if (typeof lat !== 'number' || typeof lon !== 'number' || Math.abs(lat) > 90 || Math.abs(lon) > 180 || n === null) return null;
    return { lat, lon, visitors: n };
  });
  const countries = list(v['countries'], 50, countryRow);
  return visitors === null || locations === null ? null : { visitors, locations, countries: countries ?? [] };
}
