import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@sightline/event-store';
import { EVENTS_IN_WINDOW } from '../query/window-sql.js';
import { PARQUET_SELECT } from './export-columns.js';
import { EXPORT_ORDER_BY, windowParams, type ExportWindow } from './event-pages.js';

/**
 * Rows per Parquet row group: ClickHouse's writer buffers one group before it writes
 * it, so this bounds the engine's memory for the export (its default is 1M rows).
 */
export const PARQUET_ROW_GROUP_ROWS = 50_000;

/**
 * A Parquet export is one file ClickHouse writes itself (a Parquet file is not a
 * concatenation of pages: its footer describes every row group). The store writes it
 * to a temporary file here (chDB directly, a server's answer streamed into it); the
 * caller streams the file and calls `remove`.
 */
export async function writeParquetFile(events: EventStore, window: ExportWindow): Promise<{ path: string; remove: () => Promise<void> }> {
  if (!events.writeFile) throw new Error('this events store cannot write files');
  const path = join(tmpdir(), `sightline-export-${randomBytes(12).toString('hex')}.parquet`);
  const remove = () => rm(path, { force: true });
  try {
    await events.writeFile(
      `SELECT ${PARQUET_SELECT} FROM events WHERE ${EVENTS_IN_WINDOW} ORDER BY ${EXPORT_ORDER_BY}`,
      windowParams(window),
      'Parquet',
      path,
      {
        output_format_parquet_row_group_size: PARQUET_ROW_GROUP_ROWS,
      },
    );
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}
