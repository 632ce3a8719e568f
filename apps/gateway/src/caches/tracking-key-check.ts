import { LRUCache } from 'lru-cache';

/** What the gateway knows about a tracking key. */
export type KeyVerdict = 'known' | 'unknown';

/** Asks the sites service; true: a site has this key, false: none has. Throws when it cannot tell. */
/** `requestId`: the request that caused the lookup (others may wait on it), for the logs. */
export type KeyLookup = (trackingKey: string, requestId: string) => Promise<boolean>;

export interface TrackingKeyCheckOptions {
  lookup: KeyLookup;
  /** how long a known key is trusted without news; default 60 s (deletions arrive as news at once) */
  knownTtlMs?: number;
  /** how long an unknown key is remembered as unknown; default 10 s */
  unknownTtlMs?: number;
  /** how long a key is let through after the lookup failed (sites down); default 5 s */
  unverifiedTtlMs?: number;
  /** most keys kept (least recently used go first); default 100 000 */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  verdict: KeyVerdict;
  expiresAt: number;
}

/**
 * Tracking key → known/unknown, for `POST /api/event`: an event for a key no site
 * has is refused at the edge instead of travelling through the bus to ingest.
 *
 * - A hit is a synchronous map lookup (`peek`), so the 202 path stays fast.
 * - A miss asks sites once per key at a time, however many events wait for it.
 * - Unknown keys are remembered `unknownTtlMs`: a flood of a bad key costs one
 *   lookup per period.
 * - Fail open: when sites cannot answer, the key is let through (for
 *   `unverifiedTtlMs`, so an outage costs one lookup per key per period, not a
 *   deadline per event). Collection must keep answering 202 while a service is
 *   down; ingest still drops events of unknown sites.
 * - `forget` (site.deleted news) makes the next event look the key up again.
 */
export class TrackingKeyCheck {
  private readonly entries: LRUCache<string, Entry>;
  private readonly loads = new Map<string, Promise<KeyVerdict>>();
  /** keys forgotten while their load ran: that load's answer may predate the news, so it is not kept */
  private readonly staleLoads = new Set<string>();
  private readonly knownTtlMs: number;
  private readonly unknownTtlMs: number;
  private readonly unverifiedTtlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: TrackingKeyCheckOptions) {
    this.knownTtlMs = options.knownTtlMs ?? 60_000;
    this.unknownTtlMs = options.unknownTtlMs ?? 10_000;
    this.unverifiedTtlMs = options.unverifiedTtlMs ?? 5_000;
    this.now = options.now ?? (() => performance.now());
    this.entries = new LRUCache<string, Entry>({ max: options.maxEntries ?? 100_000 });
  }

  /** The cached verdict, or undefined when the key must be looked up ({@link verdict}). */
  peek(trackingKey: string): KeyVerdict | undefined {
    const entry = this.entries.get(trackingKey);
    return entry && entry.expiresAt > this.now() ? entry.verdict : undefined;
  }

  /** The verdict, from the cache or from sites. Never rejects. */
  verdict(trackingKey: string, requestId: string): KeyVerdict | Promise<KeyVerdict> {
    const cached = this.peek(trackingKey);
    if (cached) return cached;
    let load = this.loads.get(trackingKey);
    if (!load) {
      load = this.load(trackingKey, requestId).finally(() => {
        this.loads.delete(trackingKey);
        this.staleLoads.delete(trackingKey);
      });
      this.loads.set(trackingKey, load);
    }
    return load;
  }

  forget(trackingKey: string): void {
    this.entries.delete(trackingKey);
    if (this.loads.has(trackingKey)) this.staleLoads.add(trackingKey);
  }

  private async load(trackingKey: string, requestId: string): Promise<KeyVerdict> {
    let verdict: KeyVerdict;
    let ttl: number;
    try {
      verdict = (await this.options.lookup(trackingKey, requestId)) ? 'known' : 'unknown';
      ttl = verdict === 'known' ? this.knownTtlMs : this.unknownTtlMs;
    } catch {
      verdict = 'known';
      ttl = this.unverifiedTtlMs;
    }
    if (!this.staleLoads.has(trackingKey)) this.entries.set(trackingKey, { verdict, expiresAt: this.now() + ttl });
    return verdict;
  }
}
