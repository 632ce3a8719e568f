import { LRUCache } from 'lru-cache';
import { queryAnswers } from '@sightline/telemetry';

export interface QueryAnswerCacheOptions {
  /** QUERY_CACHE_MAX_BYTES: the answers kept, by the heap memory they hold (their JSON and key as V8 stores them, and each entry's bookkeeping); 0 turns caching and single-flight off */
  maxBytes: number;
  /** QUERY_CACHE_LIVE_TTL_MS: an answer whose window reaches today (or realtime) is kept this long */
  liveTtlMs: number;
  /** QUERY_CACHE_CLOSED_TTL_MS: an answer whose window ended before today is kept this long, unless news drops it first */
  closedTtlMs: number;
  /**
   * A window counts as closed once its last day ended this long ago: sessions that overlap
   * midnight still change yesterday's visit metrics for 30 minutes, and ingest writes a
   * little behind the clock.
   */
  closedAfterMs: number;
  /** milliseconds since the epoch (tests move it) */
  now?: () => number;
}

/** What an answer was computed for: everything the query service reads besides the events. */
export interface AnswerKey {
  siteId: number;
  /** `query`, `props` or `funnel`: the RPCs answer different shapes */
  kind: 'query' | 'props' | 'funnel';
  timezone: string;
  weekStart: number;
  /** the goals event:goal resolves (in the order the site lists them) */
  goals: unknown;
  /** the request proper (POST /query's parsed request, libs/query-contract; the props date range) */
  request: unknown;
}

interface Entry {
  answerJson: string;
  expiresAt: number;
  bytes: number;
}

interface Flight {
  promise: Promise<string>;
  /** news arrived for the site while it ran: answer the waiters, keep nothing */
  stale: boolean;
}

/** An entry's cost besides its two strings' characters: their headers, the entry, the LRU's slot (measured: ~150 bytes). */
const ENTRY_OVERHEAD_BYTES = 160;
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/** Bytes a string's characters take on V8's heap: one per character while all are Latin-1, else two per character (UTF-8's length undercounts those). */
export function heapBytes(text: string): number {
  return BEYOND_LATIN1.test(text) ? 2 * text.length : text.length;
}

const OUTCOME: Record<keyof QueryAnswerCacheStats, string> = { loads: 'computed', hits: 'cached', joined: 'joined' };

/** What the cache did (also `sightline_query_answers_total{outcome}`). */
export interface QueryAnswerCacheStats {
  /** answers computed by the query service */
  loads: number;
  /** answers served from the cache */
  hits: number;
  /** requests that waited for an identical query already running */
  joined: number;
}

/**
 * Answers of POST /query and GET /props (every route: API key, browser session, share
 * hash), per gateway replica. Authorisation is checked before this is asked: the key is
 * what the answer was computed from, never who asked.
 *
 * - Single flight: identical queries arriving together run once; every caller gets that
 *   answer (or its error).
 * - Kept briefly: a window reaching today (and realtime) for `liveTtlMs`; a window that
 *   ended before today for `closedTtlMs`, since nothing new arrives for it except through
 *   news that drops it: an import (`import.progress`), a site deleted or changed, settings.
 * - Errors are never kept; answers go out of the cache least recently used first once
 *   they hold `maxBytes`.
 * - The site's local date is part of the key: `7d` or `month` mean another window tomorrow.
 */
export class QueryAnswerCache {
  private readonly entries: LRUCache<string, Entry> | undefined;
  private readonly flights = new Map<string, Flight>();
  private readonly now: () => number;
  readonly stats: QueryAnswerCacheStats = { loads: 0, hits: 0, joined: 0 };

  constructor(private readonly options: QueryAnswerCacheOptions) {
    this.now = options.now ?? Date.now;
    if (options.maxBytes > 0) this.entries = new LRUCache<string, Entry>({ maxSize: options.maxBytes, sizeCalculation: (entry) => entry.bytes });
  }

  get enabled(): boolean {
    return this.entries !== undefined;
  }

  /**
   * The answer of `key`: cached, joined to an identical running query, or computed by `load`
   * (the query service's answer as JSON, with its resolved `date_range`).
   */
  async answer(key: AnswerKey, load: () => Promise<string>): Promise<string> {
    if (!this.entries) {
      this.count('loads');
      return load();
    }
    const now = this.now();
    const text = keyText(key, localDate(now, key.timezone));
    const cached = this.entries.get(text);
    if (cached && cached.expiresAt > now) {
      this.count('hits');
      return cached.answerJson;
    }
    const running = this.flights.get(text);
    if (running) {
      this.count('joined');
      return running.promise;
    }
    this.count('loads');
    const flight: Flight = { promise: load(), stale: false };
    this.flights.set(text, flight);
    try {
      const answerJson = await flight.promise;
      if (!flight.stale) {
        const ttl = this.closed(answerJson, key.timezone) ? this.options.closedTtlMs : this.options.liveTtlMs;
        const bytes = heapBytes(answerJson) + heapBytes(text) + ENTRY_OVERHEAD_BYTES;
        // larger than the whole cache: lru-cache would refuse it anyway
        if (ttl > 0 && bytes <= this.options.maxBytes) this.entries.set(text, { answerJson, expiresAt: this.now() + ttl, bytes });
      }
      return answerJson;
    } finally {
      if (this.flights.get(text) === flight) this.flights.delete(text);
    }
  }

  /** New data for the site may exist (an import ended, the site or its settings changed): drop its answers. */
  forgetSite(siteId: number): void {
    const prefix = `${siteId}\n`;
    for (const [text, flight] of this.flights) {
      if (!text.startsWith(prefix)) continue;
      flight.stale = true;
      this.flights.delete(text);
    }
    if (!this.entries) return;
    for (const text of [...this.entries.keys()]) if (text.startsWith(prefix)) this.entries.delete(text);
  }

  private count(what: keyof QueryAnswerCacheStats): void {
    this.stats[what] += 1;
    queryAnswers.inc({ outcome: OUTCOME[what] });
  }

  /** bytes held (tests) */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  /** Did the answer's window end before the site's today (less the settling time)? Realtime echoes instants: never closed. */
  private closed(answerJson: string, timezone: string): boolean {
    const end = resolvedEnd(answerJson);
    if (end === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(end)) return false;
    return end < localDate(this.now() - this.options.closedAfterMs, timezone);
  }
}

/** The last day of the resolved window: POST /query echoes `query.date_range`, ListProps `date_range`. */
function resolvedEnd(answerJson: string): string | undefined {
  try {
    const answer = JSON.parse(answerJson) as { query?: { date_range?: unknown }; date_range?: unknown };
    const range = answer.query?.date_range ?? answer.date_range;
    return Array.isArray(range) && typeof range[1] === 'string' ? range[1] : undefined;
  } catch {
    return undefined;
  }
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** YYYY-MM-DD of `ms` in `timezone` (en-CA formats dates that way). */
export function localDate(ms: number, timezone: string): string {
  let format = dateFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
    if (dateFormats.size < 1_000) dateFormats.set(timezone, format);
  }
  return format.format(ms);
}

/** One line per part; the site id first so a site's entries are found by prefix. Object keys sorted: `{a,b}` and `{b,a}` are one query. */
function keyText(key: AnswerKey, today: string): string {
  return [key.siteId, key.kind, key.timezone, key.weekStart, today, canonicalJson(key.goals), canonicalJson(key.request)].join('\n');
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}
