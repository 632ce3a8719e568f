import { IMPORT_MAX_ERRORS, type ImportFormat, type ImportLineError } from '@sightline/events-schema';
import { LineSplitter } from './line-splitter.js';
import { parseImportLine } from './parse-line.js';
import type { ImportRun, ImportStore } from './import-store.js';
import type { StagedRow } from './staged-row.js';

/** Rows per staging insert: large enough for ClickHouse, small enough to bound memory. */
export const STAGE_BATCH_ROWS = 10_000;

export interface ImportHeader {
  importId: number;
  siteId: number;
  format: ImportFormat;
  /** the ingest replica receiving it (0 when alone) */
  replica?: number;
}

/**
 * Reads an upload to its end: every line parsed, bad ones counted with their line
 * number and reason (the first IMPORT_MAX_ERRORS kept), good ones staged in batches.
 * Holds one batch and one partial line, whatever the upload's size. Returns the run
 * as staged (state 'staged', or 'failed' when no line was valid); the caller records it.
 */
export async function receiveImport(store: ImportStore, header: ImportHeader, chunks: AsyncIterable<Buffer>, clock: () => number): Promise<ImportRun> {
  const splitter = new LineSplitter();
  const errors: ImportLineError[] = [];
  let accepted = 0;
  let rejected = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  let batch: StagedRow[] = [];
  const now = clock();
  const ids = { importId: header.importId, siteId: header.siteId, line: 0, replica: header.replica ?? 0 };
  const reject = (line: number, reason: string) => {
    rejected += 1;
    if (errors.length < IMPORT_MAX_ERRORS) errors.push({ line, reason });
  };
  const take = async (lines: Iterable<{ line: number; text: string } | { line: number; tooLong: true }>) => {
    for (const split of lines) {
      if ('tooLong' in split) {
        reject(split.line, 'line longer than 64 KiB');
        continue;
      }
      ids.line = split.line;
      const parsed = parseImportLine(split.text, header.format, ids, now);
      if (!parsed.ok) {
        reject(split.line, parsed.reason);
        continue;
      }
      accepted += 1;
      first = Math.min(first, parsed.ms);
      last = Math.max(last, parsed.ms);
      batch.push(parsed.row);
      if (batch.length >= STAGE_BATCH_ROWS) {
        await store.stage(batch);
        batch = [];
      }
    }
  };
  for await (const chunk of chunks) await take(splitter.push(chunk));
  await take(splitter.end());
  if (batch.length > 0) await store.stage(batch);
  return {
    import_id: header.importId,
    site_id: header.siteId,
    replica: header.replica ?? 0,
    format: header.format,
    state: accepted > 0 ? 'staged' : 'failed',
    accepted,
    rejected,
    errors,
    range_start: accepted > 0 ? first : 0,
    range_end: accepted > 0 ? last : 0,
  };
}
