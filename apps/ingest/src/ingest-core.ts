import type { EventStore } from '@sightline/event-store';
import type { Logger } from '@sightline/telemetry';
import type { SaltSource } from './identity/daily-salts.js';
import { IngestPipeline } from './pipeline/ingest-pipeline.js';
import type { IngestPorts } from './pipeline/ports.js';
import { rebuildSessions } from './sessions/rebuild-sessions.js';
import { SessionCache } from './sessions/session-cache.js';
import type { StoredBatchFigures } from './writer/batch-telemetry.js';
import { BatchWriter } from './writer/batch-writer.js';
import type { RowFormat } from './writer/tab-separated-rows.js';

/** What runs collected events into the store: one pipeline on this thread, or pipeline workers (threads/). */
export interface IngestCore {
  /** pipelines running side by side (1 on the main thread; one per worker): each gets two batches of unacked events */
  readonly pipelines: number;
  /** whether it takes a message's payload as the bus's JSON text (`payloadText`) and parses it itself */
  readonly takesPayloadText: boolean;
  /**
   * One delivered message; resolves once its rows are stored (then the caller acks).
   * `shard`: the event shard it came from — a visitor's events always share one, so
   * a threaded core hands each shard's events to the same worker. `storedAt`: when
   * the bus stored it (DeliveredMessage.storedAt), which tells a backlog's batches.
   */
  handle(raw: unknown, redelivered: boolean, streamSeq: number | undefined, shard: number, storedAt?: number): Promise<void>;
  /** A deleted site: forget its visits, stop writing its rows and finish the batches that may hold some. */
  forgetSite(siteId: number): Promise<void>;
  /** Writes what waits and stops. */
  close(): Promise<void>;
}

export interface IngestCoreDeps {
  ports: IngestPorts;
  salts: SaltSource;
  store: EventStore;
  config: { INGEST_BATCH_ROWS: number; INGEST_BATCH_MAX_DELAY_MS: number };
  /** a batch may go at this many rows when the engine is free (BatchWriterOptions.minRows); default INGEST_BATCH_ROWS */
  batchMinRows?: number;
  log: Logger;
  /** Opens what only events need (the geo data); awaited before the first event. */
  prepare?: () => Promise<void>;
  /** a stored batch's metrics; default: this thread's registry (a worker hands them to the main thread's) */
  onStoredBatch?: (figures: StoredBatchFigures) => void;
  /** how events and sessions rows go to the store (BatchWriterOptions.rowFormat) */
  rowFormat?: RowFormat;
}

/**
 * The pipeline with what it owns on its thread: the live visits (rebuilt from the
 * store before the first event), the batch writer and the session expiry.
 */
export function startIngestCore(deps: IngestCoreDeps): IngestCore {
  const { store, log, config, ports } = deps;
  const sessions = new SessionCache();
  const writer = new BatchWriter(store, {
    maxRows: config.INGEST_BATCH_ROWS,
    ...(deps.batchMinRows ? { minRows: deps.batchMinRows } : {}),
    maxDelayMs: config.INGEST_BATCH_MAX_DELAY_MS,
    retryBaseMs: 200,
    retryMaxMs: 30_000,
    // Each shard's consumer holds at most a batch of unacked messages: once a batch waits here, write.
    maxParts: config.INGEST_BATCH_ROWS,
    onInsertError: (err, attempt) => log.warn({ err: String(err), attempt }, 'events insert failed; retrying the batch'),
    ...(deps.onStoredBatch ? { onStored: deps.onStoredBatch } : {}),
    ...(deps.rowFormat ? { rowFormat: deps.rowFormat } : {}),
  });
  const pipeline = new IngestPipeline({ ports, salts: deps.salts, sessions, writer, store });

  // Geo data and live visits are loaded when the first event arrives, not at start:
  // an idle ingest then holds neither the geo data nor the events store (embedded
  // chDB loads on first use). Every event waits for this; a failure is retried by
  // the next one (the bus redelivers).
  let warming: Promise<void> | undefined;
  let warm = false;
  const warmUp = (): Promise<void> =>
    (warming ??= (async () => {
      await deps.prepare?.();
      const rebuilt = await rebuildSessions(store, sessions, ports.clock());
      log.info({ sessions: rebuilt.visits, repaired: rebuilt.repaired }, 'live sessions rebuilt from the sessions and events tables');
      warm = true;
    })().catch((error: unknown) => {
      warming = undefined;
      throw error;
    }));
  const expiry = setInterval(() => sessions.expire(), 60_000);
  expiry.unref();

  return {
    pipelines: 1,
    takesPayloadText: false,
    // once warm, straight to the pipeline: no await (and microtask) per event for a warm-up long done
    handle: (raw, redelivered, streamSeq, _shard, storedAt) =>
      warm ? pipeline.handle(raw, redelivered, streamSeq, storedAt) : warmUp().then(() => pipeline.handle(raw, redelivered, streamSeq, storedAt)),
    forgetSite: async (siteId) => {
      sessions.dropSite(siteId);
      await writer.forgetSite(siteId);
    },
    close: async () => {
      clearInterval(expiry);
      await writer.close();
    },
  };
}
