import { settingsV1 } from '@sightline/proto';
import { startPeriodicTask, type DepsFor, type ServiceInstance } from '@sightline/runtime';
import { DEFAULT_RELAY_INTERVAL_MS, DEFAULT_SWEEP_INTERVAL_MS, startOutboxRelay, sweepOutbox, type OutboxRelay } from './outbox/relay.js';
import type { SettingsContext } from './settings-context.js';
import { settingsServiceImplementation } from './settings-service.js';
import { consumeSiteDeleted, SITE_DELETED_DURABLE } from './site-deleted.js';

export interface SettingsOptions {
  /** how often the outbox relay looks for unpublished rows besides being kicked (tests shorten it) */
  relayIntervalMs?: number;
  /** durable name of the site.deleted consumer (tests use their own) */
  siteDeletedDurable?: string;
}

export interface SettingsInstance extends ServiceInstance {
  /** the outbox relay (tests flush it) */
  relay: OutboxRelay;
}

/** Serves SettingsService, runs the outbox relay and its sweep, and consumes site.deleted until `stop()`. */
/** The stores settings asks the launcher for. */
export const SETTINGS_NEEDS = { db: true, bus: true } as const;

export async function startSettings(deps: DepsFor<typeof SETTINGS_NEEDS>, options: SettingsOptions = {}): Promise<SettingsInstance> {
  const { db, bus } = deps;
  const relay = startOutboxRelay(db, bus, deps.clock, deps.log, options.relayIntervalMs ?? DEFAULT_RELAY_INTERVAL_MS);
  const sweeper = startPeriodicTask('settings-outbox-sweep', DEFAULT_SWEEP_INTERVAL_MS, async () => void (await sweepOutbox(db, deps.clock())), deps.log);
  // starts in the background: settings serves even before the SITES stream exists
  const consumer = consumeSiteDeleted(db, bus, deps.log, options.siteDeletedDurable ?? SITE_DELETED_DURABLE);
  const ctx: SettingsContext = { db, bus, clock: deps.clock, log: deps.log, kickOutbox: () => relay.kick() };
  return {
    services: [{ definition: settingsV1.SettingsServiceService, implementation: settingsServiceImplementation(ctx) }],
    relay,
    stop: async () => {
      await consumer.stop();
      await relay.stop();
      await sweeper.stop();
    },
  };
}
