import type { Bus } from '@sightline/bus';
import type { Db } from '@sightline/db';
import type { Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

/** What the settings handlers work with. */
export interface SettingsContext {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** asks the outbox relay to publish now (after a commit that wrote an outbox row) */
  kickOutbox(): void;
}
