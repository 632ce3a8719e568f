import type { Config } from '@sightline/config';
import { runMigrations } from '@sightline/db';
import { applyEventsRetention, LazyEventStore, runEventMigrations, type EventStore } from '@sightline/event-store';
import { SERVICE_NAMES, type LaunchableModule } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';
import { SERVICE_MODULES } from './service-modules.js';
import { assertExternalStores, closeStores, openStores, type Stores } from './stores.js';

/**
 * Applies one service's PostgreSQL and ClickHouse migrations (each runner skips what is applied).
 * Lines name the service as `module`: the logger's own `service` (the process's target) is already on them.
 */
export async function migrateModule(module: LaunchableModule, stores: Stores, config: Config, log: Logger): Promise<void> {
  // a declared migrations folder that is missing is a packaging error: the runner refuses it
  if (module.needs.db && module.dbSchema && module.dbMigrationsDir && stores.db) {
    const { applied } = await runMigrations(stores.db, { schema: module.dbSchema, dir: module.dbMigrationsDir });
    if (applied.length > 0) log.info({ applied, module: module.name }, 'database migrations applied');
  }
  if (module.needs.events && module.eventMigrationsDir && stores.events) {
    const dir = module.eventMigrationsDir;
    const migrate = async (events: EventStore) => {
      const { applied } = await runEventMigrations(events, { dir, cluster: config.CLICKHOUSE_CLUSTER });
      if (applied.length > 0) log.info({ applied, module: module.name }, 'events store migrations applied');
      // the owner of the raw tables (ingest: the one module with event migrations) sets or removes their TTL (EVENTS_RETENTION_DAYS)
      await applyEventsRetention(events, config.EVENTS_RETENTION_DAYS, config.CLICKHOUSE_CLUSTER);
    };
    // an embedded store not yet loaded migrates when first used, before any statement of any service
    if (stores.events instanceof LazyEventStore) await stores.events.beforeFirstUse(migrate);
    else await migrate(stores.events);
  }
}

/**
 * `--target=migrate`: every service's migrations against the shared PostgreSQL and
 * ClickHouse, then exit — the Helm chart's pre-install/pre-upgrade hook. Services
 * still migrate on start (idempotent), so the hook only surfaces failures before
 * any pod rolls.
 */
export async function migrateAll(config: Config, log: Logger): Promise<void> {
  const modules = SERVICE_NAMES.map((name) => SERVICE_MODULES[name]);
  const needs = { db: modules.some((m) => m.needs.db && m.dbSchema), events: modules.some((m) => m.needs.events && m.eventMigrationsDir) };
  assertExternalStores(config, needs, 'migrate');
  const stores = await openStores(config, needs);
  try {
    for (const module of modules) await migrateModule(module, stores, config, log);
  } finally {
    await closeStores(stores);
  }
}
