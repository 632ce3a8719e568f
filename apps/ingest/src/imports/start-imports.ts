import type { Bus, Subscription } from '@sightline/bus';
import type { Db } from '@sightline/db';
import { LazyEventStore, type EventStore } from '@sightline/event-store';
import { PendingImports } from './pending-imports.js';
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
export async function startImports(
  deps: { events: EventStore; bus: Bus; log: Logger; clock: () => Date; db?: Db },
  options: { siteDeletedDurable?: string; replica?: number } = {},
): Promise<ImportsInstance> {
  const store = new ImportStore(deps.events);
  const replica = options.replica ?? 0;
  const pending = deps.db ? new PendingImports(deps.db) : undefined;
  const runner = new ImportRunner(store, deps.bus, deps.log, () => deps.clock().getTime(), replica, pending);
  let siteDeleted: Subscription | undefined;
  try {
    siteDeleted = await startSiteDeletedImports(deps.bus, runner, deps.log, options.siteDeletedDurable);
    // An embedded engine not loaded yet stays unloaded when nothing is pending (an
    // idle install stays small); a staged import left by a crash is resumed at once.
    const deferrable = deps.events instanceof LazyEventStore && !deps.events.opened && pending !== undefined && !(await pending.any(replica));
    if (deferrable) await (deps.events as LazyEventStore).beforeFirstUse((opened) => runner.resume(new ImportStore(opened)));
    else await runner.resume();
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
