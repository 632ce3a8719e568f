import { createReadStream } from 'node:fs';
import { ApiError } from '@sightline/errors';
import type { EventStore } from '@sightline/event-store';
import type { queryV1 } from '@sightline/proto';
import { reportSiteOf } from '../query-service.js';
import { resolveWindow } from '../query/resolve-dates.js';
import { countWindowEvents, eventPages, type ExportWindow } from './event-pages.js';
import { exportValues, isExportFormat, type ExportFormat } from './export-columns.js';
import { CSV_HEADER, csvLine, ndjsonLine } from './format-rows.js';
import { writeParquetFile } from './parquet-file.js';

/** Largest `data` of one message: well under gRPC's 4 MiB default, small enough to interleave with other calls. */
export const EXPORT_CHUNK_BYTES = 256 * 1024;

/** Where chunks go; `write` resolves when the receiver can take more (flow control), `cancelled` when it went away. */
export interface ExportSink {
  write(chunk: queryV1.ExportChunk): Promise<void>;
  cancelled(): boolean;
}

/** "7d", "month", "realtime" or the JSON of [start, end] (as ListProps): the same forms as POST /query. */
function dateRangeOf(raw: string): string | [string, string] {
  if (!raw.startsWith('[')) return raw;
  let range: unknown;
  try {
    range = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid_date_range');
  }
  if (!Array.isArray(range) || range.length !== 2 || !range.every((d) => typeof d === 'string')) throw new ApiError('invalid_date_range');
  return range as [string, string];
}

async function writeData(sink: ExportSink, data: Buffer, rows: number): Promise<void> {
  for (let at = 0; at < data.length; at += EXPORT_CHUNK_BYTES) {
    const end = Math.min(data.length, at + EXPORT_CHUNK_BYTES);
    // the rows count with the slice that completes them
    await sink.write({ data: data.subarray(at, end), rows: end === data.length ? rows : 0 });
  }
}

async function writeText(events: EventStore, window: ExportWindow, format: 'ndjson' | 'csv', sink: ExportSink): Promise<void> {
  const line = format === 'csv' ? csvLine : ndjsonLine;
  if (format === 'csv') await sink.write({ data: Buffer.from(CSV_HEADER), rows: 0 });
  for await (const page of eventPages(events, window)) {
    if (sink.cancelled()) return;
    let text = '';
    for (const row of page) text += line(exportValues(row));
    await writeData(sink, Buffer.from(text), page.length);
  }
}

async function writeParquet(events: EventStore, window: ExportWindow, rows: number, sink: ExportSink): Promise<void> {
  const file = await writeParquetFile(events, window);
  try {
    let pending: Buffer | undefined;
    for await (const chunk of createReadStream(file.path, { highWaterMark: EXPORT_CHUNK_BYTES })) {
      if (sink.cancelled()) return;
      // one chunk behind, so the last one carries the row count
      if (pending) await sink.write({ data: pending, rows: 0 });
      pending = chunk as Buffer;
    }
    await sink.write({ data: pending ?? Buffer.alloc(0), rows });
  } finally {
    await file.remove();
  }
}

/**
 * The ExportEvents RPC: checks and resolves the request (a refusal before any
 * message), sends the head (window and the rows counted now), then the file's bytes
 * page by page, each page only once the receiver took the previous one.
 */
export async function exportEvents(events: EventStore, request: queryV1.ExportEventsRequest, sink: ExportSink): Promise<void> {
  const format = request.format;
  if (!isExportFormat(format)) throw new ApiError('invalid_request', 'format must be ndjson, csv or parquet.');
  const site = reportSiteOf(request.site);
  const resolved = resolveWindow(dateRangeOf(request.dateRange), site.timezone, site.nowMs);
  const window: ExportWindow = { siteId: site.siteId, startMs: resolved.startMs, endMs: resolved.endMs };
  const counted = await countWindowEvents(events, window);
  const [start, end] =
    resolved.kind === 'realtime'
      ? [new Date(resolved.startMs).toISOString(), new Date(resolved.endMs - 1).toISOString()]
      : [resolved.startDate, resolved.endDate];
  await sink.write({ head: { dateRangeStart: start, dateRangeEnd: end, rowsCounted: counted }, data: Buffer.alloc(0), rows: 0 });
  if (format === 'parquet') await writeParquet(events, window, counted, sink);
  else await writeText(events, window, format as Exclude<ExportFormat, 'parquet'>, sink);
}
