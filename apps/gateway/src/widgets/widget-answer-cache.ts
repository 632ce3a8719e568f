import { LRUCache } from 'lru-cache';

interface Entry {
  answer: unknown;
  expiresAt: number;
}

interface Flight {
  promise: Promise<unknown>;
  /** news arrived for the site while it ran: answer the waiters, keep nothing */
  stale: boolean;
}

/** What the cache did (the bench and the tests read it). */
export interface WidgetCacheStats {
  loads: number;
  hits: number;
  joined: number;
}

/**
 * Widget answers per (site, type, window), per gateway replica: kept `ttlMs`
 * (WIDGET_CACHE_TTL_MS, 15–60 s), one load at a time per entry, so any number of viewers
 * cost one answer per TTL. Errors are never kept. Site news (deleted, updated — a key
 * rotation among them —, settings, an import) drops the site's answers.
 */
export class WidgetAnswerCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly flights = new Map<string, Flight>();
  readonly stats: WidgetCacheStats = { loads: 0, hits: 0, joined: 0 };

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    maxEntries = 20_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  async answer<T>(siteId: number, type: string, window: string, load: () => Promise<T>): Promise<T> {
    const key = `${siteId}\n${type}\n${window}`;
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) {
      this.stats.hits += 1;
      return cached.answer as T;
    }
    const running = this.flights.get(key);
    if (running) {
      this.stats.joined += 1;
      return running.promise as Promise<T>;
    }
    this.stats.loads += 1;
    const flight: Flight = { promise: load(), stale: false };
    this.flights.set(key, flight);
    try {
      const answer = (await flight.promise) as T;
      if (!flight.stale) this.entries.set(key, { answer, expiresAt: this.now() + this.ttlMs });
      return answer;
    } finally {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    }
  }

  forgetSite(siteId: number): void {
    const prefix = `${siteId}\n`;
    for (const [key, flight] of this.flights) {
      if (!key.startsWith(prefix)) continue;
      flight.stale = true;
      this.flights.delete(key);
    }
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
