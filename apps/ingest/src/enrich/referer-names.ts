/**
 * Known referrers by host, from Snowplow's referer-parser data (GPL-3.0; converted to
 * apps/ingest/data/referers.json by apps/ingest/scripts/build-referers.ts).
 * Lookup order, as in Snowplow's parsers: host + path prefixes (e.g. bing.com/images/search),
 * the host, then its parent domains (de.search.example.com → search.example.com → …).
 */
import { readFileSync } from 'node:fs';
import { hostAndParents } from './hostnames.js';

export type RefererMedium = 'unknown' | 'email' | 'social' | 'search' | 'paid' | 'chatbot';

export interface KnownReferer {
  name: string;
  medium: RefererMedium;
}

interface RefererData {
  referers: Array<[string, RefererMedium]>;
  domains: Record<string, number>;
}

const data = JSON.parse(readFileSync(new URL('../../data/referers.json', import.meta.url), 'utf8')) as RefererData;
const KNOWN: ReadonlyMap<string, KnownReferer> = new Map(
  Object.entries(data.domains).map(([domain, index]) => {
    const [name, medium] = data.referers[index]!;
    return [domain, { name, medium }];
  }),
);
/** Longest path listed for a domain, in segments: bounds the prefix lookups. */
const MAX_PATH_SEGMENTS = Math.max(...[...KNOWN.keys()].map((key) => key.split('/').length - 1));

/** `host` lowercase ASCII; `path` the URL path ('/…'). */
export function lookupReferer(host: string, path = ''): KnownReferer | undefined {
  const segments = path.split('/').filter(Boolean).slice(0, MAX_PATH_SEGMENTS);
  for (let n = segments.length; n > 0; n--) {
    const hit = KNOWN.get(`${host}/${segments.slice(0, n).join('/')}`);
    if (hit) return hit;
  }
  for (const candidate of hostAndParents(host)) {
    const hit = KNOWN.get(candidate);
    if (hit) return hit;
  }
  return undefined;
}
