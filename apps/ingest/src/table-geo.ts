import type { GeoInfo, GeoLookup } from './pipeline/ports.js';

const UNKNOWN: GeoInfo = { country: '', region: '', city: 0 };

/** Geo from a fixed table of addresses: tests and benches whose expectations must not move with the DB-IP data. */
export function tableGeo(table: Record<string, GeoInfo>): GeoLookup {
  return { lookup: (ip) => table[ip] ?? UNKNOWN };
}
