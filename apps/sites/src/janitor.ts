import type { Db } from '@sightline/db';
import { sweepOutbox } from '@sightline/outbox';
import { startPeriodicTask, type Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

export const DEFAULT_JANITOR_INTERVAL_MS = 5 * 60_000;

export interface SweepResult {
  idempotencyRecords: number;
  outboxRows: number;
}

/**
 * Deletes idempotency records past their 24 hours (a repeat then runs as a new
 * request) and outbox rows past the outbox retention (a week, libs/outbox). Unpublished rows are never
 * deleted. Sites, members, goals, funnels and the audit trail are records and stay.
 */
export async function sweep(db: Db, now: Date): Promise<SweepResult> {
  const records = await db.query('DELETE FROM sites.idempotency_records WHERE expires_at <= $1', [now]);
  const outboxRows = await sweepOutbox(db, 'sites', now);
  return { idempotencyRecords: records.rowCount, outboxRows };
}

/** Sweeps every `intervalMs` in the background. */
export function startJanitor(db: Db, clock: Clock, log: Logger, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodicTask('janitor', intervalMs, async () => {
    const result = await sweep(db, clock());
    if (result.idempotencyRecords + result.outboxRows > 0) log.debug({ ...result }, 'janitor swept');
  }, log);
}
