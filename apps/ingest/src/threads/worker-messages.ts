import type { EncodedRows, EventStoreParams } from '@sightline/event-store';
import type { SpanContextRecord, SpanRecord } from '@sightline/telemetry';
import type { GeoInfo, TrackedSite } from '../pipeline/ports.js';
import type { StoredBatchFigures } from '../writer/batch-telemetry.js';
import type { RowFormat } from '../writer/tab-separated-rows.js';

/**
 * What the main thread and a pipeline worker say to each other. Everything here
 * crosses threads by structured clone: plain data only.
 */

/** Where a worker's geo data comes from: DB-IP (production, benches) or a table (tests, so expectations do not move with the data). */
export type WorkerGeo = { kind: 'dbip' } | { kind: 'table'; table: Record<string, GeoInfo> };

/** The worker's `workerData`. */
export interface PipelineWorkerData {
  index: number;
  batchRows: number;
  /** a batch may go at this many rows while the engine is free (the worker's share of INGEST_BATCH_ROWS) */
  batchMinRows: number;
  batchMaxDelayMs: number;
  logLevel: string;
  geo: WorkerGeo;
  /** the main thread's events store, which the worker's statements go to */
  store: { kind: 'clickhouse' | 'chdb'; database: string; cluster?: string };
  /** the main thread traces: the worker records its spans and posts them there to be exported */
  tracing: boolean;
  /** how events and sessions rows go to the store (BatchWriterOptions.rowFormat) */
  rowFormat?: RowFormat;
}

/** One delivered message handed to a worker; `id` names it in the answer. */
export interface WorkerEvent {
  id: number;
  raw: unknown;
  redelivered: boolean;
  streamSeq: number | undefined;
  /** when the bus stored the message (DeliveredMessage.storedAt) */
  storedAt: number | undefined;
  /** the message's consume span (tracing on), which the batch that stores it links to */
  link?: SpanContextRecord;
}

export type ToWorker =
  /**
   * Events in delivery order, with the sites of their tracking keys as the main
   * thread resolved them just before (null: no live site) and the main thread's clock.
   */
  | { t: 'events'; now: number; sites: [string, TrackedSite | null][]; events: WorkerEvent[] }
  | { t: 'forget-site'; id: number; siteId: number }
  | { t: 'close'; id: number }
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: string };

export type FromWorker =
  /** the worker's modules are loaded: it takes events */
  | { t: 'ready' }
  /** events stored (ok) or failed (their messages stay unacked and come back) */
  | { t: 'done'; ok: number[]; failed: [number, string][] }
  /** `parent`: the worker's span the call runs under (tracing on), so the statement's span is its child */
  | { t: 'call'; id: number; call: WorkerCall; parent?: SpanContextRecord }
  /** finished spans, for the main thread's exporter */
  | { t: 'spans'; spans: SpanRecord[] }
  /** a batch stored: its metrics, for the main thread's registry (the one served) */
  | { t: 'stored-batch'; figures: StoredBatchFigures }
  /** forget-site or close finished */
  | { t: 'finished'; id: number; error?: string };

/** What a worker asks of the main thread: the stores live there (embedded chDB belongs to one thread, PGlite too). */
export type WorkerCall =
  | { op: 'site'; key: string }
  | { op: 'salt'; day: string }
  | { op: 'query'; sql: string; params?: EventStoreParams }
  | { op: 'command'; sql: string; params?: EventStoreParams }
  | { op: 'insert'; table: string; rows: EncodedRows }
  | { op: 'ping' }
  /** the DB-IP files' data sections, read once by the main thread into memory every worker shares (the trees are read from disk) */
  | { op: 'geo-databases' };
