import type { ServiceModule } from '@sightline/runtime';
import { startImports } from './imports/start-imports.js';

/**
 * The ingest service. Consumes collected events, enriches and sessionizes them, writes them to the events store;
 * imports history (IngestService.ImportEvents, proto/sightline/ingest/v1) through the same steps.
 */
export const ingestModule: ServiceModule = {
  name: 'ingest',
  needs: { events: true, bus: true },
  eventMigrationsDir: new URL('../clickhouse', import.meta.url).pathname,
  async start(deps) {
    const { events, bus } = deps;
    if (!events || !bus) throw new Error('ingest needs its events store and bus');
    const imports = await startImports({ events, bus, log: deps.log, clock: deps.clock });
    return { services: imports.services, stop: () => imports.stop() };
  },
};
