import {
  DROPPED_EVENTS_TABLE,
  eventRowTsv,
  EVENTS_TABLE,
  LATE_EVENT_DAYS_TABLE,
  sessionAttributesTsv,
  SESSIONS_TABLE,
  type EventRow,
  type SessionAttributes,
} from '@sightline/events-schema';
import { encodeRows, type EventStore } from '@sightline/event-store';
import type { SpanContext } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { Drop } from '../pipeline/drop-reasons.js';
import type { SessionVersion } from '../sessions/sessionizer.js';
import { BatchSessionVersions } from './batch-session-versions.js';
import { fromClickHouseTime } from '../sessions/clickhouse-time.js';
import { DEFAULT_ROW_FORMAT, eventLinesTsv, sessionVersionsTsv, visitAttributesTsv, type RowFormat } from './tab-separated-rows.js';
import {
  MAX_BATCH_LINKS,
  currentSpanContext,
  inBatchWriteSpan,
  recordStoredBatchFigures,
  storedBatchFigures,
  type StoredBatchFigures,
} from './batch-telemetry.js';

export interface BatchWriterOptions {
  /** flush once this many rows wait (events + session versions + drop counters) */
  maxRows: number;
  /**
   * …or once this many wait while no earlier batch waits for or is in the first write
   * stage: live traffic is written in smaller batches, sooner, while a busy engine
   * (other pipelines' inserts) lets batches grow to maxRows. Default maxRows.
   * Messages that waited in the bus's stream longer than backlogAfterMs are a
   * backlog's: their latency is already spent, so their batches grow to maxRows,
   * the fewest inserts, and the backlog drains sooner.
   */
  minRows?: number;
  /** default maxDelayMs: live traffic is delivered at once, it waits in the writer, not in the stream */
  backlogAfterMs?: number;
  /** the time now, ms since the epoch (compared with the bus's storedAt); default Date.now */
  now?: () => number;
  /** …or once the oldest waiting row is this old */
  maxDelayMs: number;
  /** first retry delay after a failed insert; doubles up to retryMaxMs */
  retryBaseMs: number;
  retryMaxMs: number;
  /**
   * flush once this many parts (bus messages) wait: set to the consumer's
   * maxAckPending, since no further message arrives until these are acked
   */
  maxParts?: number;
  onInsertError?: (err: unknown, attempt: number) => void;
  /** how events and sessions rows go to the store (tab-separated-rows.ts); default DEFAULT_ROW_FORMAT */
  rowFormat?: RowFormat;
  /** a batch's metrics once it is stored; default: recorded in this thread's registry */
  onStored?: (figures: StoredBatchFigures) => void;
}

export const DEFAULT_BATCH_WRITER_OPTIONS: BatchWriterOptions = { maxRows: 5000, maxDelayMs: 1000, retryBaseMs: 200, retryMaxMs: 30_000 };

/** A site's day (UTC, 'YYYY-MM-DD') holding an event older than its visit's start. */
export interface LateEventDay {
  site_id: number;
  day: string;
}

/** What one message contributes to a batch. */
export interface BatchPart {
  events: readonly EventRow[];
  /** session row versions, built into rows when the batch is written */
  sessions: readonly SessionVersion[];
  drops: readonly Drop[];
  /** set when the event is older than its visit's start (0006_late_event_days.sql) */
  lateDays?: readonly LateEventDay[];
  /** when the bus stored the message (DeliveredMessage.storedAt), ms since the epoch */
  storedAt?: number;
  /**
   * The attributes object of the visit the events belong to (LiveSession.attributes),
   * whose values the rows carry: the writer then encodes them once per visit
   */
  visitAttributes?: SessionAttributes;
}

interface DropCount {
  site_id: number;
  hour: string;
  reason: string;
  crawler_category: string;
  count: number;
}

type Table = typeof EVENTS_TABLE | typeof SESSIONS_TABLE | typeof DROPPED_EVENTS_TABLE | typeof LATE_EVENT_DAYS_TABLE;

class Batch {
  /** the events as rows (rowFormat 'json')… */
  readonly events: EventRow[] = [];
  /**
   * …or as TabSeparated lines (rowFormat 'tsv'), encoded as they come: while the batch
   * waits and is written, the collector walks one flat string per event, not a row
   * of some thirty fields, and the row dies young
   */
  readonly eventLines: string[] = [];
  /** per event, whichever the format: its site (a deleted site's rows are left out) and time (the lag metric) */
  readonly eventSites: number[] = [];
  readonly eventTimes: number[] = [];
  /** coalesced: a version written and cancelled within the batch is not written at all */
  readonly sessions = new BatchSessionVersions();
  readonly drops = new Map<string, DropCount>();
  /** one row per site and day (the table keeps one anyway) */
  readonly lateDays = new Map<string, LateEventDay>();
  /** tables already inserted: a retry after a partial failure never writes one twice */
  readonly written = new Set<Table>();
  /**
   * Names this batch's inserts to the engine (`insert_deduplication_token`, with the
   * table's name): an insert that was stored although the answer was lost (the store
   * went away mid-answer) is skipped by the engine when retried, instead of stored twice
   * (migration 0011 keeps a window of recent tokens on events and sessions).
   */
  readonly id = randomUUID();

  tokenOf(table: Table): string {
    return `${this.id}:${table}`;
  }
  parts = 0;
  /** the newest part's storedAt: how long its message waited in the stream tells a backlog */
  storedAt: number | undefined;
  /** the consume spans of the messages in the batch (trace links) */
  readonly links: SpanContext[] = [];
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (err: unknown) => void;

  constructor() {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.done.catch(() => {});
  }

  get rows(): number {
    return this.eventSites.length + this.sessions.size + this.drops.size + this.lateDays.size;
  }
}

/**
 * A batch is written in two stages. Within a stage batches land in order, and a
 * batch's sessions only after its events: so the sessions table never counts an
 * event the events table lacks (a process killed between the stages leaves events
 * without their visits' updates, which the restart repairs, visit-repair.ts), and
 * the late days of a batch land before its events. The stages of consecutive batches
 * overlap: batch N+1's events are inserted while batch N's sessions are.
 */
const WRITE_STAGES: readonly { name: string; tables: readonly Table[] }[] = [
  { name: 'events', tables: [LATE_EVENT_DAYS_TABLE, EVENTS_TABLE] },
  { name: 'sessions', tables: [SESSIONS_TABLE, DROPPED_EVENTS_TABLE] },
];

/** Settled once a batch leaves a stage (stored, or given up at close); the next batch waits on it. */
interface StageExit {
  promise: Promise<void>;
  resolve: () => void;
}

function stageExit(): StageExit {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

function rowsOf(batch: Batch, table: Table): readonly { site_id: number }[] {
  switch (table) {
    case LATE_EVENT_DAYS_TABLE:
      return [...batch.lateDays.values()];
    case EVENTS_TABLE:
      return batch.events;
    case SESSIONS_TABLE:
      return batch.sessions.rows();
    case DROPPED_EVENTS_TABLE:
      return [...batch.drops.values()];
  }
}

function hourOf(at: Date): string {
  return `${at.toISOString().slice(0, 13).replace('T', ' ')}:00:00`;
}

/**
 * Buffers rows and inserts them in batches: at maxRows or after maxDelayMs.
 * `add` resolves only once its rows are stored, so a caller acks its bus message
 * after the insert — never before. A failed insert keeps the batch and retries with
 * backoff until it succeeds (the bus holds the messages meanwhile). A batch is
 * written in two stages (WRITE_STAGES), each taking one batch at a time, so retries
 * keep their order and the stages of consecutive batches overlap.
 */
export class BatchWriter {
  private current = new Batch();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** batches flushed that have not yet left the first write stage (waiting for it or in it) */
  private beforeFirstStageExit = 0;
  /** per write stage, settled when the last batch given to it has left it */
  private stageTails: readonly Promise<void>[] = WRITE_STAGES.map(() => Promise.resolve());
  private closed = false;
  /** sites deleted while this process runs (few; ids are never reused) */
  private readonly deletedSites = new Set<number>();

  constructor(
    private readonly store: EventStore,
    private readonly options: BatchWriterOptions = DEFAULT_BATCH_WRITER_OPTIONS,
  ) {}

  /** Resolves when the part is stored; rejects only when the writer closes before the store came back. */
  add(part: BatchPart): Promise<void> {
    if (this.closed) return Promise.reject(new Error('batch writer closed'));
    const batch = this.current;
    batch.parts += 1;
    if (part.storedAt !== undefined) batch.storedAt = part.storedAt;
    const link = currentSpanContext();
    if (link && batch.links.length < MAX_BATCH_LINKS) batch.links.push(link);
    const tsv = (this.options.rowFormat ?? DEFAULT_ROW_FORMAT) === 'tsv';
    for (const row of part.events) {
      if (tsv) batch.eventLines.push(eventRowTsv(row, part.visitAttributes ? visitAttributesTsv(part.visitAttributes) : sessionAttributesTsv(row)));
      else batch.events.push(row);
      batch.eventSites.push(row.site_id);
      batch.eventTimes.push(fromClickHouseTime(row.timestamp));
    }
    for (const row of part.sessions) batch.sessions.add(row);
    for (const d of part.drops) {
      const hour = hourOf(d.at);
      const key = `${d.site_id}|${hour}|${d.reason}|${d.crawler_category}`;
      const row = batch.drops.get(key);
      if (row) row.count += 1;
      else batch.drops.set(key, { site_id: d.site_id, hour, reason: d.reason, crawler_category: d.crawler_category, count: 1 });
    }
    for (const late of part.lateDays ?? []) batch.lateDays.set(`${late.site_id}|${late.day}`, late);
    if (batch.rows >= this.options.maxRows || batch.parts >= (this.options.maxParts ?? Infinity) || this.readyEarly(batch)) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs);
    return batch.done;
  }

  /** minRows reached, the first stage free and the traffic live: no reason to wait for more. */
  private readyEarly(batch: Batch): boolean {
    return this.beforeFirstStageExit === 0 && batch.rows >= (this.options.minRows ?? this.options.maxRows) && !this.behind(batch);
  }

  /**
   * The newest message was stored in the stream more than backlogAfterMs ago: live
   * traffic reaches here within moments of that, so the pipeline is working off a
   * backlog. (Not the event's own time: a bench or a replay may carry any.)
   */
  private behind(batch: Batch): boolean {
    if (batch.storedAt === undefined) return false;
    return (this.options.now ?? Date.now)() - batch.storedAt > (this.options.backlogAfterMs ?? this.options.maxDelayMs);
  }

  /** A batch left the first stage: the one filling may go now if it holds minRows. */
  private leftFirstStage(): void {
    this.beforeFirstStageExit -= 1;
    if (!this.closed && this.readyEarly(this.current)) void this.flush();
  }

  /** Writes what waits now; resolves once it is stored, after every batch before it. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.current;
    if (batch.rows === 0) return this.flushing ?? Promise.resolve();
    this.current = new Batch();
    // Each stage takes one batch at a time, in order; a previous batch's failure does not stop this one.
    const previous = this.stageTails;
    this.beforeFirstStageExit += 1;
    const finished = WRITE_STAGES.map(() => stageExit());
    this.stageTails = finished.map((stage) => stage.promise);
    const run: Promise<void> = this.write(batch, previous, finished).then(() => batch.done);
    const tracked: Promise<void> = run.finally(() => {
      if (this.flushing === tracked) this.flushing = undefined;
    });
    tracked.catch(() => {});
    this.flushing = tracked;
    return run;
  }

  /**
   * A deleted site's rows are never written from now on: an event prepared before the
   * deletion reaches a batch after it. Resolves once every batch that may already
   * hold its rows in the store is written, so a deletion run next removes them all.
   */
  forgetSite(siteId: number): Promise<void> {
    this.deletedSites.add(siteId);
    return this.flush();
  }

  /** Flushes what is buffered; if the store stays down past `graceMs`, the waiting parts are rejected (their messages get redelivered). */
  async close(graceMs = 5000): Promise<void> {
    const pending = this.flush();
    this.closed = true;
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    await Promise.race([pending.catch(() => {}), timeout]);
  }

  /**
   * Stage by stage (WRITE_STAGES): a stage starts once the previous batch has left it,
   * so the next batch's events are inserted while this batch's sessions are.
   */
  private async write(batch: Batch, previous: readonly Promise<void>[], finished: readonly StageExit[]): Promise<void> {
    let leftFirst = false;
    const leaveFirst = () => {
      if (leftFirst) return;
      leftFirst = true;
      this.leftFirstStage();
    };
    try {
      for (const [stage, { name, tables }] of WRITE_STAGES.entries()) {
        await previous[stage];
        if (!(await this.writeStage(batch, name, tables))) return;
        finished[stage]!.resolve();
        if (stage === 0) leaveFirst();
      }
      (this.options.onStored ?? recordStoredBatchFigures)(storedBatchFigures({ eventTimes: batch.eventTimes, rows: batch.rows, drops: batch.drops.values() }));
      batch.resolve();
    } finally {
      // a batch given up at close leaves every stage free for the next one
      for (const stage of finished) stage.resolve();
      leaveFirst();
    }
  }

  /** Inserts the stage's tables, retrying with backoff; false when the writer closed before they were stored (the batch is rejected). */
  private async writeStage(batch: Batch, stage: string, tables: readonly Table[]): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const attributes = {
          'sightline.batch.stage': stage,
          'sightline.batch.events': batch.eventSites.length,
          'sightline.batch.rows': batch.rows,
          'sightline.batch.attempt': attempt,
        };
        await inBatchWriteSpan(batch.links, attributes, async () => {
          for (const table of tables) await this.insertOnce(batch, table);
        });
        return true;
      } catch (err) {
        this.options.onInsertError?.(err, attempt);
        if (this.closed) {
          batch.reject(err);
          return false;
        }
        const delay = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(attempt - 1, 20));
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async insertOnce(batch: Batch, table: Table): Promise<void> {
    if (batch.written.has(table)) return;
    if ((this.options.rowFormat ?? DEFAULT_ROW_FORMAT) === 'tsv' && (table === EVENTS_TABLE || table === SESSIONS_TABLE)) {
      const deleted = this.deletedSites;
      const rows =
        table === EVENTS_TABLE
          ? eventLinesTsv(deleted.size > 0 ? batch.eventLines.filter((_line, i) => !deleted.has(batch.eventSites[i]!)) : batch.eventLines)
          : sessionVersionsTsv(deleted.size > 0 ? [...batch.sessions.versions()].filter((v) => !deleted.has(v.session.site_id)) : batch.sessions.versions());
      if (rows.rows > 0) await this.store.insertEncoded(table, { ...rows, dedupToken: batch.tokenOf(table) });
      batch.written.add(table);
      return;
    }
    // built only now: a retry after this table went in builds nothing
    let rows = rowsOf(batch, table);
    if (this.deletedSites.size > 0) rows = rows.filter((row) => !this.deletedSites.has(row.site_id));
    if (rows.length === 0) return;
    await this.store.insertEncoded(table, { ...encodeRows(rows as readonly object[] as Record<string, unknown>[]), dedupToken: batch.tokenOf(table) });
    batch.written.add(table);
  }
}
