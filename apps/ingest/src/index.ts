import { defineServiceModule } from '@sightline/runtime';
import { SiteContextCache } from '@sightline/site-context';

/**
 * The ingest service. Consumes collected events, enriches and sessionizes them, writes them to the events store.
 * Its gRPC contract grows in proto/sightline/ingest/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 * It calls sites, settings and identity for each site's context (libs/site-context).
 */
export const ingestModule = defineServiceModule({
  name: 'ingest',
  needs: { events: true, bus: true },
  calls: ['sites', 'settings', 'identity'],
  eventMigrationsDir: new URL('../clickhouse', import.meta.url).pathname,
  async start({ bus, log, clients }) {
    // tracking key → site, filters and plan, for the pipeline the Ingestion issue builds
    const siteContext = await SiteContextCache.start({ clients, bus, log, owner: 'ingest' });
    return { services: [], stop: () => siteContext.stop() };
  },
});
