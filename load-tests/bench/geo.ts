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

/** DB-IP open time, RSS growth, and lookups per second (random IPv4 and one hot address). */
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

  return {
    'open (mmdb files + mapping) (ms)': openMs,
    'RSS before / after open (MiB)': `${rssBefore} / ${rssAfter}`,
    'RSS delta after open (MiB)': rssAfter - rssBefore,
    'lookups/s, 200k random IPv4': Math.round(ips.length / randomSeconds),
    'share of random IPv4 with a city id': `${((100 * located) / ips.length).toFixed(1)}%`,
    'lookups/s, one hot address': Math.round(200_000 / hotSeconds),
  };
}
