import type { Db } from '@sightline/db';
import { sweepOutbox } from '@sightline/outbox';
import { startPeriodicTask, type Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

export const DEFAULT_JANITOR_INTERVAL_MS = 5 * 60_000;

export interface SweepResult {
  idempotencyRecords: number;
  outboxRows: number;
  /** import jobs whose upload never reached ingest, now failed */
  abandonedImports: number;
}

/**
 * An upload lasts at most 30 minutes (the gateway's stream deadline) and ingest
 * reports as soon as it ends, so a job still without any report after this long
 * never reached ingest (gateway or ingest down mid-request): it is failed, not left
 * queued forever.
 */
export const ABANDONED_IMPORT_MS = 60 * 60_000;

/**
 * Deletes idempotency records past their 24 hours (a repeat then runs as a new
 * request) and outbox rows past the outbox retention (a week, libs/outbox). Unpublished rows are never
 * deleted; fails import jobs abandoned before their upload reached ingest. Sites,
 * members, goals, funnels and the audit trail are records and stay.
 */
export async function sweep(db: Db, now: Date): Promise<SweepResult> {
  const records = await db.query('DELETE FROM sites.idempotency_records WHERE expires_at <= $1', [now]);
  const outboxRows = await sweepOutbox(db, 'sites', now);
  const abandoned = await db.query(
    `UPDATE sites.import_jobs SET status = 'failed', failure = 'The upload never reached the import service; nothing was imported. Upload it again.', finished_at = $1
      WHERE status = 'queued' AND progress_seq = 0 AND created_at <= $2`,
    [now, new Date(now.getTime() - ABANDONED_IMPORT_MS)],
  );
  return { idempotencyRecords: records.rowCount, outboxRows, abandonedImports: abandoned.rowCount };
}

/** Sweeps every `intervalMs` in the background. */
export function startJanitor(db: Db, clock: Clock, log: Logger, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodicTask(
    'janitor',
    intervalMs,
    async () => {
      const result = await sweep(db, clock());
      if (result.idempotencyRecords + result.outboxRows + result.abandonedImports > 0) log.debug({ ...result }, 'janitor swept');
    },
    log,
  );
}
