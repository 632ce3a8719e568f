import { defineServiceModule } from '@sightline/runtime';
import { INGEST_EVENT_MIGRATIONS_DIR, INGEST_MIGRATIONS_DIR, INGEST_SCHEMA } from './migrations-dir.js';
import { INGEST_CALLS, INGEST_NEEDS, startIngest } from './start-ingest.js';

/**
 * The ingest service: consumes `events.collected`, drops what must not be counted,
 * enriches, sessionizes and writes events and session versions to the events store
 * in batches (acked after the insert); `site.deleted` deletes a site's rows. It
 * calls sites, settings and identity for each site's context (libs/site-context).
 */
export const ingestModule = defineServiceModule({
  name: 'ingest',
  needs: INGEST_NEEDS,
  calls: INGEST_CALLS,
  dbSchema: INGEST_SCHEMA,
  dbMigrationsDir: INGEST_MIGRATIONS_DIR,
  eventMigrationsDir: INGEST_EVENT_MIGRATIONS_DIR,
  start: (deps) => startIngest(deps),
});

export { startIngest } from './start-ingest.js';
export type { StartIngestOptions } from './start-ingest.js';
export { sessionizeVisitor, applyEvent } from './sessions/sessionizer.js';
export type { SessionEvent } from './sessions/session-event.js';
export type { IngestPorts, SiteResolver, Enricher, GeoLookup, TrackedSite } from './pipeline/ports.js';
