import type { Bus } from '@sightline/bus';
import type { Db } from '@sightline/db';
import { DEFAULT_RELAY_INTERVAL_MS, startOutboxRelay as startRelay, sweepOutbox as sweepSchemaOutbox, type OutboxRelay } from '@sightline/outbox';
import type { Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

export { DEFAULT_RELAY_INTERVAL_MS, type OutboxRelay };

/** The settings outbox relay (libs/outbox): publishes `settings.outbox` rows to the bus, at least once. Creates the table on a new install. */
export function startOutboxRelay(db: Db, bus: Bus, clock: Clock, log: Logger, intervalMs: number): Promise<OutboxRelay> {
  return startRelay({ db, bus, clock, log, schema: 'settings', intervalMs });
}

export const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;

/** Deletes published `settings.outbox` rows past the outbox retention (unpublished rows never are). */
export function sweepOutbox(db: Db, now: Date): Promise<number> {
  return sweepSchemaOutbox(db, 'settings', now);
}
