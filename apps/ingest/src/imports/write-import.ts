import { IMPORT_MAX_ERRORS, type EventRow, type SessionRow } from '@sightline/events-schema';
import type { ImportRun, ImportStore, StagingCursor } from './import-store.js';
import { sessionizeVisitor } from './sessionize-import.js';
import type { StagedRow } from './staged-row.js';

/** Staged rows read per page; written rows flushed per batch. */
export const READ_PAGE_ROWS = 10_000;
export const WRITE_BATCH_ROWS = 10_000;

export type WriteOutcome = { done: true; run: ImportRun } | { done: false; reason: 'deleted' };

/**
 * Writes one staged import: first removes whatever an interrupted earlier attempt
 * wrote (so a re-run never counts a row twice), then reads the staged rows in
 * (visitor, time) order, feeds each visitor's events to the sessionizer and writes
 * events and sessions with the import's id. Rows are deterministic (session ids
 * hash the import, visitor and first line), so every attempt writes the same rows.
 * `stillWanted` is asked between pages: a deleted import stops and removes its rows.
 */
export async function writeImport(store: ImportStore, staged: ImportRun, stillWanted: () => Promise<boolean>): Promise<WriteOutcome> {
  await store.deleteImportRows(staged.site_id, staged.import_id, { keepStaging: true });
  const run: ImportRun = { ...staged, errors: [...staged.errors] };
  let events: EventRow[] = [];
  let sessions: SessionRow[] = [];
  let visitor: StagedRow[] = [];
  const flush = async (force: boolean) => {
    if (!force && events.length < WRITE_BATCH_ROWS) return;
    await store.writeRows(events, sessions);
    events = [];
    sessions = [];
  };
  const finishVisitor = async () => {
    if (visitor.length === 0) return;
    const out = sessionizeVisitor(visitor);
    visitor = [];
    events.push(...out.events);
    sessions.push(...out.sessions);
    for (const orphan of out.orphans) {
      run.accepted -= 1;
      run.rejected += 1;
      run.errors.push({ line: orphan.line, reason: 'engagement event outside any session (no pageview or custom event within 30 minutes before it)' });
    }
    await flush(false);
  };
  let cursor: StagingCursor | undefined;
  for (;;) {
    const page = await store.readStaged(run.import_id, cursor, READ_PAGE_ROWS);
    for (const row of page) {
      if (visitor.length > 0 && visitor[0]!.visitor_key !== row.visitor_key) await finishVisitor();
      visitor.push(row);
    }
    if (page.length < READ_PAGE_ROWS) break;
    const tail = page[page.length - 1]!;
    cursor = { visitor_key: tail.visitor_key, timestamp: tail.timestamp, line: tail.line };
    if (!(await stillWanted())) {
      await store.deleteImportRows(run.site_id, run.import_id);
      return { done: false, reason: 'deleted' };
    }
  }
  await finishVisitor();
  await flush(true);
  run.errors.sort((a, b) => a.line - b.line);
  run.errors = run.errors.slice(0, IMPORT_MAX_ERRORS);
  if (run.accepted === 0) run.state = 'failed';
  else run.state = 'completed';
  return { done: true, run };
}
