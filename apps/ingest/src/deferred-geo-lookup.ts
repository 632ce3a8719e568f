import type { GeoInfo, GeoLookup } from './pipeline/ports.js';

/**
 * The geo port, opened on demand: DB-IP's files and the name mapping take about
 * 220 MB once read, and an ingest that has seen no event yet should not hold them.
 * `open()` (memoized; retried after a failure) must have resolved before `lookup`.
 */
export class DeferredGeoLookup implements GeoLookup {
  #geo: GeoLookup | undefined;
  #opening: Promise<void> | undefined;

  constructor(private readonly openGeo: () => Promise<GeoLookup>) {}

  get opened(): boolean {
    return this.#geo !== undefined;
  }

  open(): Promise<void> {
    this.#opening ??= this.openGeo().then(
      (geo) => {
        this.#geo = geo;
      },
      (error: unknown) => {
        this.#opening = undefined;
        throw error;
      },
    );
    return this.#opening;
  }

  lookup(ip: string): GeoInfo {
    if (!this.#geo) throw new Error('geo lookup used before open() resolved');
    return this.#geo.lookup(ip);
  }
}
