import type { EventStore } from '@sightline/event-store';
import { readGeoDatabases, type GeoDatabases } from '@sightline/geo';
import type { Clock } from '@sightline/runtime';
import { context } from '@opentelemetry/api';
import { activeSpanContextRecord, contextUnder, exportForwardedSpans, tracingActive, type Logger, type SpanContextRecord } from '@sightline/telemetry';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { SaltSource } from '../identity/daily-salts.js';
import type { IngestCore } from '../ingest-core.js';
import type { SiteResolver } from '../pipeline/ports.js';
import { recordStoredBatchFigures } from '../writer/batch-telemetry.js';
import type { RowFormat } from '../writer/tab-separated-rows.js';
import { spawnTsWorker } from './spawn-worker.js';
import type { FromWorker, PipelineWorkerData, ToWorker, WorkerCall, WorkerEvent, WorkerGeo } from './worker-messages.js';

export interface PipelineThreadsOptions {
  /** how many worker threads run the pipeline */
  workers: number;
  /** the event shards this process consumes; each is handed to one worker, always the same */
  shards: readonly number[];
  store: EventStore;
  /** the main thread's site resolver (cached, follows the bus's news); workers get its answers with each batch */
  sites: SiteResolver;
  salts: SaltSource;
  clock: Clock;
  log: Logger;
  config: { INGEST_BATCH_ROWS: number; INGEST_BATCH_MAX_DELAY_MS: number };
  geo: WorkerGeo;
  /** how events and sessions rows go to the store (BatchWriterOptions.rowFormat) */
  rowFormat?: RowFormat;
  /** the worker's module; default pipeline-worker (tests: one that dies on cue) */
  workerEntry?: URL;
}

// beside this module, in its language: .ts from the sources, .js in the image's compiled tree
const WORKER_ENTRY = new URL(`./pipeline-worker${path.extname(import.meta.url)}`, import.meta.url);

/**
 * The pipeline on worker threads: the main thread keeps the bus, the stores and the
 * site cache; each worker runs the pipeline for its shards, with its own live visits
 * (a visitor's events always come on one shard) and batch writer. Per event the main
 * thread only passes the message on and acks it once the worker reports it stored.
 * As replicas split shards between processes, workers split them inside one.
 */
export class PipelineThreads implements IngestCore {
  /** workers parse the payloads: the main thread passes the text on */
  readonly takesPayloadText = true;
  private readonly laneOfShard = new Map<number, Lane>();

  private constructor(
    private readonly lanes: Lane[],
    shards: readonly number[],
  ) {
    shards.forEach((shard, i) => this.laneOfShard.set(shard, lanes[i % lanes.length]!));
  }

  static async start(options: PipelineThreadsOptions): Promise<PipelineThreads> {
    const count = Math.min(options.workers, options.shards.length);
    // read when the first worker opens its geo data, once for all of them
    let databases: Promise<GeoDatabases> | undefined;
    const geoDatabases = (): Promise<GeoDatabases> =>
      (databases ??= readGeoDatabases().catch((error: unknown) => {
        databases = undefined;
        throw error;
      }));
    // Each of N workers sees 1/N of the events: its batch may go at 1/N of INGEST_BATCH_ROWS
    // while its inserts have the engine to themselves, so a live event waits no longer
    // than on one thread (at the whole size it waited N times as long); when the engine
    // is busy its batches grow to the whole size (fewer, larger inserts)
    const batchMinRows = Math.max(1, Math.ceil(options.config.INGEST_BATCH_ROWS / count));
    const lanes = Array.from({ length: count }, (_, index) => new Lane(index, options, batchMinRows, geoDatabases));
    try {
      await Promise.all(lanes.map((lane) => lane.started));
    } catch (error) {
      await Promise.all(lanes.map((lane) => lane.terminate()));
      throw error;
    }
    options.log.info({ workers: count }, 'the ingest pipeline runs on worker threads');
    return new PipelineThreads(lanes, options.shards);
  }

  /** no more workers than shards: a worker without a shard would hold its geo data for nothing */
  get pipelines(): number {
    return this.lanes.length;
  }

  handle(raw: unknown, redelivered: boolean, streamSeq: number | undefined, shard: number, storedAt?: number): Promise<void> {
    const lane = this.laneOfShard.get(shard);
    if (!lane) return Promise.reject(new Error(`event shard ${shard} is not one this ingest consumes`));
    return lane.handle(raw, redelivered, streamSeq, storedAt);
  }

  async forgetSite(siteId: number): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.request((id) => ({ t: 'forget-site', id, siteId }))));
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/**
 * The tracking key of a message, read from its JSON text without parsing it (the
 * worker parses): the gateway writes `"k":"<key>"` with no space. A match that is
 * not the top-level key (a prop named k) only adds a site the worker does not use:
 * the worker looks its event's own key up and asks the main thread for any key the
 * batch lacks.
 */
const TRACKING_KEY = /"k":"([A-Za-z0-9]{8,64})"/;

function trackingKeyOf(raw: unknown): string | undefined {
  if (typeof raw === 'string') return TRACKING_KEY.exec(raw)?.[1];
  const key = (raw as { k?: unknown } | null)?.k;
  return typeof key === 'string' ? key : undefined;
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** One worker and what is on its way to it or back. */
class Lane {
  started: Promise<void>;
  private worker!: Worker;
  private readonly pending = new Map<number, Waiter>();
  private readonly requests = new Map<number, Waiter>();
  private outbox: WorkerEvent[] = [];
  private scheduled = false;
  /** batches leave in delivery order, each after the sites of the one before were resolved */
  private sending: Promise<void> = Promise.resolve();
  private next = 0;
  private closing = false;

  constructor(
    private readonly index: number,
    private readonly options: PipelineThreadsOptions,
    private readonly batchMinRows: number,
    private readonly geoDatabases: () => Promise<GeoDatabases>,
  ) {
    this.started = this.spawn();
  }

  handle(raw: unknown, redelivered: boolean, streamSeq: number | undefined, storedAt: number | undefined): Promise<void> {
    const id = (this.next += 1);
    const stored = new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    const event: WorkerEvent = { id, raw, redelivered, streamSeq, storedAt };
    // the consume span this runs under, for the worker's batch to link to
    const link = tracingActive() ? activeSpanContextRecord() : undefined;
    if (link) event.link = link;
    this.outbox.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      // what arrives in this turn of the event loop goes in one message
      setImmediate(() => this.flush());
    }
    return stored;
  }

  request(message: (id: number) => ToWorker): Promise<void> {
    const id = (this.next += 1);
    const done = new Promise<void>((resolve, reject) => this.requests.set(id, { resolve, reject }));
    // after every event handed over before it, those of this turn included
    this.flush();
    this.sending = this.sending.then(() => this.worker.postMessage(message(id)));
    return done;
  }

  async close(): Promise<void> {
    await this.request((id) => ({ t: 'close', id }));
    this.closing = true;
    await this.worker.terminate();
    // the worker answered every event it stored before it finished: any left were not (their messages come back)
    this.failPending(new Error(`ingest pipeline worker ${this.index} closed before storing the event`));
  }

  async terminate(): Promise<void> {
    this.closing = true;
    await this.worker?.terminate();
  }

  private flush(): void {
    this.scheduled = false;
    if (this.outbox.length === 0) return;
    const events = this.outbox;
    this.outbox = [];
    this.sending = this.sending.then(() => this.send(events));
  }

  private async send(events: WorkerEvent[]): Promise<void> {
    const keys = new Set<string>();
    for (const event of events) {
      const key = trackingKeyOf(event.raw);
      if (key !== undefined) keys.add(key);
    }
    let sites: [string, Awaited<ReturnType<SiteResolver['resolve']>>][];
    try {
      sites = await Promise.all(
        [...keys].map(async (key) => [key, await this.options.sites.resolve(key)] as [string, Awaited<ReturnType<SiteResolver['resolve']>>]),
      );
    } catch (error) {
      // as on one thread: an event whose site cannot be looked up stays unacked and comes back
      for (const event of events) this.settle(event.id, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.worker.postMessage({ t: 'events', now: this.options.clock().getTime(), sites, events } satisfies ToWorker);
  }

  /** Every event not answered yet fails (unacked, the bus delivers it again). */
  private failPending(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, error);
  }

  private settle(id: number, error?: Error): void {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    if (error) waiter.reject(error);
    else waiter.resolve();
  }

  private spawn(): Promise<void> {
    const { config, geo, store, log } = this.options;
    const data: PipelineWorkerData = {
      index: this.index,
      batchRows: config.INGEST_BATCH_ROWS,
      batchMinRows: this.batchMinRows,
      batchMaxDelayMs: config.INGEST_BATCH_MAX_DELAY_MS,
      logLevel: log.level,
      geo,
      store: { kind: store.kind, database: store.database, ...(store.cluster ? { cluster: store.cluster } : {}) },
      tracing: tracingActive(),
      ...(this.options.rowFormat ? { rowFormat: this.options.rowFormat } : {}),
    };
    const worker = spawnTsWorker(this.options.workerEntry ?? WORKER_ENTRY, data);
    this.worker = worker;
    // a worker that fails before it is ready fails its start (the caller retries or gives up)
    let up = false;
    let ready!: () => void;
    let failed!: (error: Error) => void;
    const started = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    worker.on('message', (message: FromWorker) => {
      switch (message.t) {
        case 'ready':
          up = true;
          return ready();
        case 'done':
          for (const id of message.ok) this.settle(id);
          for (const [id, error] of message.failed) this.settle(id, new Error(error));
          return;
        case 'call':
          return this.serve(worker, message.id, message.call, message.parent);
        case 'spans':
          return exportForwardedSpans(message.spans);
        case 'stored-batch':
          return recordStoredBatchFigures(message.figures);
        case 'finished': {
          const waiter = this.requests.get(message.id);
          this.requests.delete(message.id);
          if (message.error) waiter?.reject(new Error(message.error));
          else waiter?.resolve();
          return;
        }
      }
    });
    worker.on('error', (error) => {
      log.error({ err: error, worker: this.index }, 'ingest pipeline worker failed');
      if (!up) failed(error);
    });
    worker.on('exit', (code) => {
      if (!up) return failed(new Error(`ingest pipeline worker ${this.index} exited (code ${code}) before it was ready`));
      if (this.closing || this.worker !== worker) return;
      // Its events were not acked: the bus delivers them again. A new worker takes
      // the lane and rebuilds its live visits from the store on its first event.
      const gone = new Error(`ingest pipeline worker ${this.index} stopped (exit code ${code})`);
      this.failPending(gone);
      for (const waiter of this.requests.values()) waiter.reject(gone);
      this.requests.clear();
      log.error({ worker: this.index, code }, 'ingest pipeline worker stopped; starting a new one');
      // what is sent from now on goes to the new worker once it is up (messages the dead
      // one was still to get go nowhere: their events have failed above)
      this.sending = this.sending.then(() => this.respawn());
    });
    return started;
  }

  /** A new worker for the lane, tried again with backoff until one starts (its events wait unacked meanwhile). */
  private async respawn(): Promise<void> {
    for (let attempt = 0; !this.closing; attempt += 1) {
      try {
        return await this.spawn();
      } catch (error) {
        this.options.log.error({ err: error, worker: this.index, attempt }, 'ingest pipeline worker could not be started; trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 500 * 2 ** attempt)));
      }
    }
  }

  /** Answers the worker that asked (a replacement numbers its calls afresh). */
  private serve(worker: Worker, id: number, call: WorkerCall, parent: SpanContextRecord | undefined): void {
    // under the worker's span that made the call: the statement's span becomes its child
    const answered = parent ? context.with(contextUnder(parent), () => this.answer(call)) : this.answer(call);
    answered.then(
      (value) => worker.postMessage({ t: 'reply', id, ok: true, value } satisfies ToWorker),
      (error: unknown) => worker.postMessage({ t: 'reply', id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies ToWorker),
    );
  }

  private answer(call: WorkerCall): Promise<unknown> {
    const { store, sites, salts } = this.options;
    switch (call.op) {
      case 'insert':
        return store.insertEncoded(call.table, call.rows);
      case 'query':
        return store.query(call.sql, call.params);
      case 'command':
        return store.command(call.sql, call.params);
      case 'site':
        return sites.resolve(call.key);
      case 'salt':
        return salts.forDay(call.day);
      case 'ping':
        return store.ping();
      case 'geo-databases':
        return this.geoDatabases();
    }
  }
}
