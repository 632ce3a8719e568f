import { openGeoLookup, type GeoDatabases } from '@sightline/geo';
import { createEnricher } from '../enrich/enricher.js';
import { DeferredGeoLookup } from '../deferred-geo-lookup.js';
import type { SaltSource } from '../identity/daily-salts.js';
import { utcDay } from '../identity/visitor-hash.js';
import type { GeoLookup, IngestPorts, TrackedSite, SiteResolver } from '../pipeline/ports.js';
import { tableGeo } from '../table-geo.js';
import type { MainThread } from './main-thread.js';
import type { WorkerGeo } from './worker-messages.js';

/**
 * The sites of the batch being handled, as the main thread resolved them just before
 * sending it (its cache follows the bus's news about sites, so a worker needs no
 * cache or news of its own). The pipeline asks for an event's site synchronously
 * when it starts on it, so the answer is always its own batch's; a key the batch
 * did not carry is asked of the main thread.
 */
export class BatchSiteResolver implements SiteResolver {
  private sites = new Map<string, TrackedSite | null>();

  constructor(private readonly main: MainThread) {}

  /** The sites of the batch about to be handled. */
  use(sites: [string, TrackedSite | null][]): void {
    this.sites = new Map(sites);
  }

  resolve(trackingKey: string): Promise<TrackedSite | null> {
    const site = this.sites.get(trackingKey);
    if (site !== undefined) return Promise.resolve(site);
    return this.main.call<TrackedSite | null>({ op: 'site', key: trackingKey });
  }
}

/** The main thread's daily salts, each day asked once while it is today or yesterday on this worker's clock. */
export class RemoteSalts implements SaltSource {
  private readonly days = new Map<string, Promise<Buffer | null>>();
  private filledOn = '';

  constructor(
    private readonly main: MainThread,
    private readonly clock: () => Date,
  ) {}

  forDay(day: string): Promise<Buffer | null> {
    const today = utcDay(this.clock());
    // at 00:00 UTC the main thread rotates the salts: ask again
    if (today !== this.filledOn) {
      this.days.clear();
      this.filledOn = today;
    }
    let salt = this.days.get(day);
    if (!salt) {
      // a Buffer crosses threads as a Uint8Array
      salt = this.main.call<Uint8Array | null>({ op: 'salt', day }).then((bytes) => (bytes ? Buffer.from(bytes) : null));
      this.days.set(day, salt);
      salt.catch(() => this.days.delete(day));
    }
    return salt;
  }
}

export interface WorkerPorts {
  ports: IngestPorts;
  sites: BatchSiteResolver;
  salts: SaltSource;
  /** the main thread's clock as of the last batch */
  setNow(now: number): void;
  /** opens the geo data (before the first event) */
  prepare(): Promise<void>;
}

/** A worker's ports: enrichment here, sites and salts from the main thread, geo on the DB-IP files the main thread shares. */
export function workerPorts(main: MainThread, geo: WorkerGeo): WorkerPorts {
  let now = Date.now();
  const clock = () => new Date(now);
  const sites = new BatchSiteResolver(main);
  const located = geoPort(main, geo);
  return {
    ports: { sites, enricher: createEnricher(), geo: located.lookup, clock },
    sites,
    salts: new RemoteSalts(main, clock),
    setNow: (value) => (now = value),
    prepare: located.open,
  };
}

function geoPort(main: MainThread, geo: WorkerGeo): { lookup: GeoLookup; open: () => Promise<void> } {
  if (geo.kind === 'table') return { lookup: tableGeo(geo.table), open: async () => {} };
  // the DB-IP files from the main thread, shared (one copy for all workers); the name mapping is per worker
  const dbip = new DeferredGeoLookup(async () => openGeoLookup({ databases: await main.call<GeoDatabases>({ op: 'geo-databases' }) }));
  return { lookup: dbip, open: () => dbip.open() };
}
