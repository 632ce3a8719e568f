import type { Bus, Subscription } from '@sightline/bus';
import type { EventStore } from '@sightline/event-store';
import { ingestV1 } from '@sightline/proto';
import type { ServiceInstance } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';
import { ImportRunner } from './import-runner.js';
import { ImportStore } from './import-store.js';
import { ingestServiceImplementation } from './ingest-service.js';
import { startSiteDeletedImports } from './site-deleted-imports.js';

export interface ImportsInstance extends ServiceInstance {
  runner: ImportRunner;
}

/** Imports inside the ingest service: the IngestService RPCs, the background writer, site.deleted cleanup. */
export async function startImports(deps: { events: EventStore; bus: Bus; log: Logger; clock: () => Date }, options: { siteDeletedDurable?: string; replica?: number } = {}): Promise<ImportsInstance> {
  const store = new ImportStore(deps.events);
  const runner = new ImportRunner(store, deps.bus, deps.log, () => deps.clock().getTime(), options.replica ?? 0);
  let siteDeleted: Subscription | undefined;
  try {
    siteDeleted = await startSiteDeletedImports(deps.bus, runner, deps.log, options.siteDeletedDurable);
    await runner.resume();
  } catch (error) {
    await siteDeleted?.stop();
    throw error;
  }
  return {
    runner,
    services: [{ definition: ingestV1.IngestServiceService, implementation: ingestServiceImplementation(runner, deps.log) as never }],
    stop: async () => {
      await siteDeleted?.stop();
      await runner.stop();
    },
  };
}
