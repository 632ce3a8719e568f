import { STREAM_NAMES, SUBJECTS, startDurableConsumer, type Bus, type DurableConsumer } from '@sightline/bus';
import type { Db } from '@sightline/db';
import { IMPORT_MAX_ERRORS, type ImportProgress } from '@sightline/events-schema';
import type { Logger } from '@sightline/telemetry';

export const IMPORT_PROGRESS_DURABLE = 'sites-import-progress';
const RETRY_START_MS = 2_000;
const STATUSES = new Set(['queued', 'running', 'completed', 'failed']);

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const count = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
const time = (v: unknown): Date | null => {
  const at = typeof v === 'string' && v !== '' ? new Date(v) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
};

/**
 * Applies one progress report to its job, only when its seq is newer than the last
 * one applied (a redelivered or overtaken report changes nothing). A job deleted in
 * the meantime (or of a deleted site) matches no row. Returns whether a row changed.
 */
export async function applyImportProgress(db: Db, report: ImportProgress, log: Logger): Promise<boolean> {
  if (!report || !isId(report.import_id) || !isId(report.site_id) || !isId(report.seq) || !STATUSES.has(report.status)) {
    log.warn({ import_id: report?.import_id }, 'import.progress message not applicable; dropped');
    return false;
  }
  const errors = (Array.isArray(report.errors) ? report.errors : [])
    .slice(0, IMPORT_MAX_ERRORS)
    .map((e) => ({ line: count(e?.line), reason: String(e?.reason ?? '').slice(0, 300) }));
  const at = time(report.at) ?? new Date();
  const finished = report.status === 'completed' || report.status === 'failed';
  const { rowCount } = await db.query(
    `UPDATE sites.import_jobs
        SET status = $4, accepted = $5, rejected = $6, errors = $7::jsonb, failure = $8,
            range_start = $9, range_end = $10, progress_seq = $3,
            started_at = CASE WHEN $4 = 'queued' THEN started_at ELSE COALESCE(started_at, $11) END, finished_at = CASE WHEN $12 THEN $11 ELSE NULL END
      WHERE id = $1 AND site_id = $2 AND progress_seq < $3`,
    [
      report.import_id,
      report.site_id,
      report.seq,
      report.status,
      count(report.accepted),
      count(report.rejected),
      JSON.stringify(errors),
      String(report.failure ?? '').slice(0, 1000),
      time(report.range_start),
      time(report.range_end),
      at,
      finished,
    ],
  );
  return rowCount > 0;
}

/** The durable consumer of import.progress; retries in the background until the stream exists. */
export function startImportProgressConsumer(db: Db, bus: Bus, log: Logger, durable = IMPORT_PROGRESS_DURABLE): DurableConsumer {
  return startDurableConsumer(
    bus,
    {
      stream: STREAM_NAMES.imports,
      durable,
      filterSubject: SUBJECTS.importProgress,
      handler: async (msg) => void (await applyImportProgress(db, msg.data, log)),
    },
    { firstDelayMs: RETRY_START_MS },
  );
}
