import { openGeoLookup } from '@sightline/geo';
import type { DepsFor } from '@sightline/runtime';
import { SiteContextCache } from '@sightline/site-context';
import { createEnricher } from './enrich/enricher.js';
import type { IngestPorts } from './pipeline/ports.js';

export const INGEST_NEEDS = { db: true, events: true, bus: true } as const;
export const INGEST_CALLS = ['sites', 'settings', 'identity'] as const;
export type IngestDeps = DepsFor<typeof INGEST_NEEDS, (typeof INGEST_CALLS)[number]>;

/**
 * THE one place where the production implementations of the pipeline's ports are
 * chosen: site context from sites/settings/identity (cached, refreshed by bus news),
 * the enrichment steps of src/enrich, DB-IP geo (libs/geo), the service clock.
 */
export async function productionPorts(deps: IngestDeps): Promise<{ ports: IngestPorts; close(): Promise<void> }> {
  const sites = await SiteContextCache.start({ clients: deps.clients, bus: deps.bus, log: deps.log, owner: 'ingest' });
  const geo = await openGeoLookup();
  return { ports: { sites, enricher: createEnricher(), geo, clock: deps.clock }, close: () => sites.stop() };
}
