/** A looked-up value and the site and owner it belongs to (what news drops it by). */
export interface SiteLookup<V> {
  value: V;
  siteId: number;
  ownerAccountId: number;
}

interface Known<V> extends SiteLookup<V> {
  at: number;
}

/**
 * A per-replica cache of lookups that name a site (a share hash, a widget key): each
 * answer kept `ttlMs` (REPORT_CACHE_TTL_MS) and dropped at once by news about its site
 * or owner; identical lookups arriving together run once; a lookup that started before
 * a piece of news keeps nothing; lookups that fail (names nothing) are not kept; at most
 * `maxEntries`, the oldest dropped first.
 */
export class SiteLookupCache<V> {
  private readonly known = new Map<string, Known<V>>();
  private readonly flights = new Map<string, Promise<V>>();
  /** bumped by every piece of news */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value of `id`, or `load`'s (shared by the lookups of `id` in flight). */
  resolve(id: string, load: () => Promise<SiteLookup<V>>): Promise<V> {
    const entry = this.known.get(id);
    if (entry && this.now() - entry.at < this.ttlMs) return Promise.resolve(entry.value);
    let flight = this.flights.get(id);
    if (!flight) {
      flight = this.fetch(id, load).finally(() => this.flights.delete(id));
      this.flights.set(id, flight);
    }
    return flight;
  }

  forgetSite(siteId: number): void {
    this.generation += 1;
    for (const [id, entry] of this.known) if (entry.siteId === siteId) this.known.delete(id);
  }

  forgetAccount(accountId: number): void {
    this.generation += 1;
    for (const [id, entry] of this.known) if (entry.ownerAccountId === accountId) this.known.delete(id);
  }

  private async fetch(id: string, load: () => Promise<SiteLookup<V>>): Promise<V> {
    const generation = this.generation;
    const found = await load();
    if (generation === this.generation) {
      if (this.known.size >= this.maxEntries) this.known.delete(this.known.keys().next().value!);
      this.known.set(id, { value: found.value, siteId: found.siteId, ownerAccountId: found.ownerAccountId, at: this.now() });
    }
    return found.value;
  }
}
