import { openGeoLookup } from '@sightline/geo';
import type { DepsFor } from '@sightline/runtime';
import { SiteContextCache } from '@sightline/site-context';
import { DeferredGeoLookup } from './deferred-geo-lookup.js';
import { createEnricher } from './enrich/enricher.js';
import type { IngestPorts } from './pipeline/ports.js';

export const INGEST_NEEDS = { db: true, events: true, bus: true } as const;
export const INGEST_CALLS = ['sites', 'settings', 'identity'] as const;
export type IngestDeps = DepsFor<typeof INGEST_NEEDS, (typeof INGEST_CALLS)[number]>;

export interface ProductionPorts {
  ports: IngestPorts;
  /** Opens what only events need (the geo data); called before the first event. */
  prepare(): Promise<void>;
  close(): Promise<void>;
}

/**
 * THE one place where the production implementations of the pipeline's ports are
 * chosen: site context from sites/settings/identity (cached, refreshed by bus news),
 * the enrichment steps of src/enrich, DB-IP geo (libs/geo, read on the first event),
 * the service clock.
 */
export async function productionPorts(deps: IngestDeps): Promise<ProductionPorts> {
  const sites = await SiteContextCache.start({ clients: deps.clients, bus: deps.bus, log: deps.log, owner: 'ingest' });
  const geo = new DeferredGeoLookup(() => openGeoLookup());
  return { ports: { sites, enricher: createEnricher(), geo, clock: deps.clock }, prepare: () => geo.open(), close: () => sites.stop() };
}
