import type { EventStore } from '@sightline/event-store';

const DESKTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const REQUEST_TIMEOUT_MS = 15_000;

export interface TrackerLoadOptions {
  gatewayUrl: string;
  key: string;
  host: string;
  events: number;
  /** event i belongs to visitor i % visitors (its own IP, one UA) */
  visitors: number;
  /** requests in flight at once */
  concurrency: number;
}

export interface TrackerLoad {
  /** the sequence numbers (prop `seq`) answered 202, growing while the load runs */
  readonly accepted: Set<number>;
  /** non-202 answers and network errors, by reason */
  readonly failures: Map<string, number>;
  /** resolves once every event was sent and answered */
  readonly done: Promise<void>;
}

/** The visitor's address: TEST-NET-2 / benchmark ranges, unique per visitor. */
export function visitorIp(visitor: number): string {
  return `198.18.${Math.floor(visitor / 250)}.${(visitor % 250) + 1}`;
}

/**
 * Deterministic tracker traffic: `events` pageviews, each with a unique `seq` prop,
 * spread over `visitors` visitors, sent with `concurrency` requests in flight as the
 * tracker sends them (text/plain JSON behind a trusted proxy). All of it lasts far
 * less than 30 minutes, so every visitor makes exactly one visit — the session
 * count a correct pipeline must store is `visitors`.
 */
export function sendTrackerLoad(options: TrackerLoadOptions): TrackerLoad {
  const accepted = new Set<number>();
  const failures = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < options.events) {
      const seq = next;
      next += 1;
      const visitor = seq % options.visitors;
      const body = JSON.stringify({ k: options.key, n: 'pageview', u: `https://${options.host}/p/${seq % 10}`, d: options.host, p: { seq } });
      try {
        const response = await fetch(`${options.gatewayUrl}/api/event`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, 'x-forwarded-for': visitorIp(visitor) },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        if (response.status === 202) accepted.add(seq);
        else failures.set(`HTTP ${response.status}`, (failures.get(`HTTP ${response.status}`) ?? 0) + 1);
      } catch (error) {
        const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
      }
    }
  };
  const done = Promise.all(Array.from({ length: options.concurrency }, worker)).then(() => undefined);
  return { accepted, failures, done };
}

export interface StoredCounts {
  /** event rows of the site */
  events: number;
  /** distinct `seq` props among them (== events when nothing is stored twice) */
  distinct_events: number;
  /** visits: sum of the sessions' signs */
  sessions: number;
  /** pageviews the visits count (sign-weighted) */
  session_pageviews: number;
}

export async function storedCounts(store: EventStore, siteId: number): Promise<StoredCounts> {
  const [counts] = await store.query<StoredCounts>(
    `SELECT
       (SELECT count() FROM events WHERE site_id = {site:UInt64}) AS events,
       (SELECT uniqExact(prop_values[indexOf(prop_keys, 'seq')]) FROM events WHERE site_id = {site:UInt64}) AS distinct_events,
       (SELECT sum(sign) FROM sessions WHERE site_id = {site:UInt64}) AS sessions,
       (SELECT sum(sign * pageviews) FROM sessions WHERE site_id = {site:UInt64}) AS session_pageviews`,
    { site: siteId },
  );
  return {
    events: Number(counts!.events),
    distinct_events: Number(counts!.distinct_events),
    sessions: Number(counts!.sessions),
    session_pageviews: Number(counts!.session_pageviews),
  };
}

/** The `seq` props stored for the site (each once per row). */
export async function storedSeqs(store: EventStore, siteId: number): Promise<number[]> {
  const rows = await store.query<{ seq: string }>(`SELECT prop_values[indexOf(prop_keys, 'seq')] AS seq FROM events WHERE site_id = {site:UInt64}`, {
    site: siteId,
  });
  return rows.map((r) => Number(r.seq));
}

/** Accepted events that are not stored, and stored ones that were never accepted: how many, and the first few of each. */
export function seqMismatch(
  accepted: Set<number>,
  stored: number[],
): { missing: number; unexpected: number; firstMissing: number[]; firstUnexpected: number[] } {
  const storedSet = new Set(stored);
  const missing = [...accepted].filter((s) => !storedSet.has(s)).sort((a, b) => a - b);
  const unexpected = [...storedSet].filter((s) => !accepted.has(s)).sort((a, b) => a - b);
  return { missing: missing.length, unexpected: unexpected.length, firstMissing: missing.slice(0, 10), firstUnexpected: unexpected.slice(0, 10) };
}
