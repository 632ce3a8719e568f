import type { Bus } from '@sightline/bus';
import type { Db } from '@sightline/db';
import { DEFAULT_RELAY_INTERVAL_MS, startOutboxRelay as startRelay, type OutboxRelay } from '@sightline/outbox';
import type { Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

export { DEFAULT_RELAY_INTERVAL_MS, type OutboxRelay };

/** The sites outbox relay (libs/outbox): publishes `sites.outbox` rows to the bus, at least once. Creates the table on a new install. */
export function startOutboxRelay(db: Db, bus: Bus, clock: Clock, log: Logger, intervalMs: number): Promise<OutboxRelay> {
  return startRelay({ db, bus, clock, log, schema: 'sites', intervalMs });
}
