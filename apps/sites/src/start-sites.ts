import { sitesV1 } from '@sightline/proto';
import type { DepsFor, ServiceInstance } from '@sightline/runtime';
import { startSettingsAuditConsumer } from './audit/settings-audit-consumer.js';
import { startImportProgressConsumer } from './imports/import-progress-consumer.js';
import { DEFAULT_JANITOR_INTERVAL_MS, startJanitor } from './janitor.js';
import { DEFAULT_RELAY_INTERVAL_MS, startOutboxRelay, type OutboxRelay } from './outbox/relay.js';
import { sitesSettings, type SitesContext } from './sites-context.js';
import { sitesServiceImplementation } from './sites-service.js';

export interface SitesOptions {
  /** how often the outbox relay looks for unpublished rows besides being kicked (tests shorten it) */
  relayIntervalMs?: number;
  /** how often expired idempotency records and old outbox rows are deleted */
  janitorIntervalMs?: number;
  /** durable name of the settings.changed audit consumer (tests sharing a NATS server use their own) */
  settingsAuditDurable?: string;
  /** durable name of the import.progress consumer (tests sharing a NATS server use their own) */
  importProgressDurable?: string;
}

export interface SitesInstance extends ServiceInstance {
  /** the outbox relay (tests flush it) */
  relay: OutboxRelay;
}

/** Serves SitesService and runs the outbox relay and the janitor until `stop()`. */
/** The stores sites asks the launcher for. */
export const SITES_NEEDS = { db: true, bus: true } as const;

export async function startSites(deps: DepsFor<typeof SITES_NEEDS>, options: SitesOptions = {}): Promise<SitesInstance> {
  const { db, bus } = deps;
  const settings = sitesSettings(deps.config);
  const relay = await startOutboxRelay(db, bus, deps.clock, deps.log, options.relayIntervalMs ?? DEFAULT_RELAY_INTERVAL_MS);
  const janitor = startJanitor(db, deps.clock, deps.log, options.janitorIntervalMs ?? DEFAULT_JANITOR_INTERVAL_MS);
  const settingsAudit = startSettingsAuditConsumer(db, bus, deps.log, options.settingsAuditDurable);
  const importProgress = startImportProgressConsumer(db, bus, deps.log, options.importProgressDurable);
  const ctx: SitesContext = { db, bus, clock: deps.clock, log: deps.log, settings, kickOutbox: () => relay.kick() };
  return {
    services: [{ definition: sitesV1.SitesServiceService, implementation: sitesServiceImplementation(ctx) }],
    relay,
    stop: async () => {
      await settingsAudit.stop();
      await importProgress.stop();
      await relay.stop();
      await janitor.stop();
    },
  };
}
