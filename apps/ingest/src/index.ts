import type { ServiceModule } from '@sightline/runtime';

/**
 * The ingest service. Consumes collected events, enriches and sessionizes them, writes them to the events store.
 * Its gRPC contract grows in proto/sightline/ingest/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 */
export const ingestModule: ServiceModule = {
  name: 'ingest',
  needs: { events: true, bus: true },
  eventMigrationsDir: new URL('../clickhouse', import.meta.url).pathname,
  async start() {
    return { services: [], stop: async () => {} };
  },
};
