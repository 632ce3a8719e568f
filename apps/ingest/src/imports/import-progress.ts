import { SUBJECTS, type Bus } from '@sightline/bus';
import type { ImportProgress } from '@sightline/events-schema';
import type { ImportRun } from './import-store.js';

let last = 0;
/** Strictly increasing across reports and restarts: the clock in µs, bumped past the last one given. */
function nextSeq(now: number): number {
  last = Math.max(last + 1, now * 1000);
  return last;
}

const iso = (ms: number): string => (ms > 0 ? new Date(ms).toISOString() : '');

/** Reports an import's state to sites (import.progress, durable); the job record follows it. */
export async function reportProgress(bus: Bus, run: ImportRun, status: ImportProgress['status'], now: number, failure = ''): Promise<void> {
  const seq = nextSeq(now);
  const report: ImportProgress = {
    import_id: run.import_id,
    site_id: run.site_id,
    seq,
    status,
    accepted: run.accepted,
    rejected: run.rejected,
    errors: run.errors,
    range_start: iso(run.range_start),
    range_end: iso(run.range_end),
    failure,
    at: new Date(now).toISOString(),
  };
  await bus.publish(SUBJECTS.importProgress, report, { msgId: `import-${run.import_id}-${seq}` });
}
