import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { StreamConfig } from './bus.js';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_MAX_DELIVER } from './bus-defaults.js';
import type { BusLogger } from './bus-logger.js';
import { StreamFullError } from './bus-errors.js';
import { DedupeWindow } from './dedupe-window.js';
import { writeFileAtomically } from './append-only-file.js';
import { DurableAckLog, type DurableProgress, type DurableSettings } from './local-ack-log.js';
import { LocalDurable, type DurableProgressSink, type MessageSource } from './local-durable.js';
import { StreamJournal, type StoredMessage } from './local-stream-journal.js';
import type { RedeliveryBackoff } from './redelivery-backoff.js';

export interface LocalStreamOptions {
  logger: BusLogger;
  backoff: RedeliveryBackoff;
  maxAckPending: number;
  dedupeWindowMs: number;
  /** Compact the journal once it is larger than this and has an acked prefix. */
  compactThresholdBytes: number;
  fsync: boolean;
  /** Most payload bytes held (see LocalBusOptions.maxStreamBytes); undefined: no limit. */
  maxBytes: number | undefined;
}

/**
 * A work-queue stream rewrites its journal without the acked prefix at most this
 * often (besides the size threshold): collected events hold raw IP and User-Agent,
 * so they leave the disk within seconds of ingest acking them, not at 64 MiB.
 */
export const WORKQUEUE_COMPACT_INTERVAL_MS = 5_000;

const NO_PROGRESS_SINK: DurableProgressSink = {
  recordSettings: () => {},
  recordDone: () => {},
  recordDelivered: () => {},
};

/**
 * One LocalBus stream: its messages (in memory, and in a journal when persistent),
 * the dedupe window, and its durable consumers.
 *
 * Retention: a message is released once every durable known for the stream has it
 * done, or when it passes max age; a stream with no durable yet keeps everything, so
 * messages published before the first consume() are not lost. (NatsBus `limits`
 * streams keep messages until max age regardless, so there a durable created later
 * still sees them; in one process every consumer exists from start-up, so the
 * difference does not arise.) A `workqueue` stream is the same plus: durables must
 * not overlap (as on JetStream), and the journal drops the acked prefix within
 * WORKQUEUE_COMPACT_INTERVAL_MS instead of waiting for the size threshold.
 */
export class LocalStream implements MessageSource {
  private items: StoredMessage[] = [];
  private head = 0;
  private last: number;
  private readonly durables = new Map<string, LocalDurable>();
  private readonly ackLogs = new Map<string, DurableAckLog>();
  private readonly ackLogCompactAt = new Map<string, number>();
  private readonly dedupe: DedupeWindow;
  private nextCompactionAt: number;
  private lastCompactionAt = 0;
  private maintenanceScheduled = false;
  private closed = false;
  /** Appends of this event-loop turn waiting for their journal write (see `append`). */
  private unwritten: Array<{ message: StoredMessage; resolve: (stored: boolean) => void; reject: (error: unknown) => void }> = [];
  private readonly unwrittenIds = new Set<string>();
  /**
   * Payload bytes of the messages held, written or waiting for their write (the
   * JSON text's length: its bytes for the ASCII that collected events nearly
   * always are; counted without encoding, as it is done per publish).
   */
  private heldBytes = 0;

  private constructor(
    private configValue: StreamConfig,
    private readonly options: LocalStreamOptions,
    private readonly dir: string | undefined,
    private readonly journal: StreamJournal | undefined,
    baseSeq: number,
    messages: StoredMessage[],
  ) {
    this.dedupe = new DedupeWindow(options.dedupeWindowMs);
    this.items = messages;
    this.last = Math.max(baseSeq, messages.at(-1)?.seq ?? 0);
    for (const m of messages) {
      if (m.msgId !== undefined) this.dedupe.remember(m.msgId, m.ts);
      this.heldBytes += m.json.length;
    }
    this.nextCompactionAt = options.compactThresholdBytes;
  }

  static inMemory(config: StreamConfig, options: LocalStreamOptions): LocalStream {
    return new LocalStream(config, options, undefined, undefined, 0, []);
  }

  /** Creates the stream's directory (when new) and loads journal and durables. */
  static open(dir: string, config: StreamConfig | undefined, options: LocalStreamOptions): LocalStream {
    mkdirSync(path.join(dir, 'durables'), { recursive: true });
    const configPath = path.join(dir, 'stream.json');
    if (config) writeFileAtomically(configPath, JSON.stringify(config));
    const storedConfig = config ?? (JSON.parse(readFileSync(configPath, 'utf8')) as StreamConfig);

    const { journal, contents } = StreamJournal.open(path.join(dir, 'journal.log'), options.fsync);
    if (contents.tornTailBytes > 0 || contents.badLines > 0) {
      options.logger('warn', 'stream journal repaired on open', {
        stream: storedConfig.name,
        tornTailBytes: contents.tornTailBytes,
        badLines: contents.badLines,
      });
    }
    const stream = new LocalStream(storedConfig, options, dir, journal, contents.baseSeq, contents.messages);
    for (const file of readdirSync(path.join(dir, 'durables'))) {
      if (file.endsWith('.acks')) stream.openDurable(file.slice(0, -'.acks'.length), undefined);
    }
    stream.releaseDone();
    return stream;
  }

  static exists(dir: string): boolean {
    return existsSync(path.join(dir, 'stream.json'));
  }

  get name(): string {
    return this.configValue.name;
  }

  get config(): StreamConfig {
    return this.configValue;
  }

  get firstSeq(): number {
    return this.items[this.head]?.seq ?? this.last + 1;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** Messages held in memory (not yet done for every durable). */
  get retainedCount(): number {
    return this.items.length - this.head;
  }

  /** Payload bytes held (see `heldBytes`); what `maxBytes` bounds. */
  get retainedBytes(): number {
    return this.heldBytes;
  }

  get journalBytes(): number {
    return this.journal?.sizeBytes ?? 0;
  }

  get(seq: number): StoredMessage | undefined {
    const first = this.firstSeq;
    if (seq < first || seq > this.last) return undefined;
    const guess = this.items[this.head + (seq - first)];
    if (guess?.seq === seq) return guess;
    // Only after a damaged journal line left a gap: fall back to a binary search.
    let lo = this.head;
    let hi = this.items.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.items[mid] as StoredMessage;
      if (m.seq === seq) return m;
      if (m.seq < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  updateConfig(config: StreamConfig): void {
    this.configValue = config;
    if (this.dir) writeFileAtomically(path.join(this.dir, 'stream.json'), JSON.stringify(config));
  }

  /**
   * Stores a message; resolves false for a duplicate msgId inside the dedupe window.
   *
   * With a journal, the appends of one event-loop turn are written together, in
   * order, by one write (one fsync with `fsync`) in the check phase of that turn:
   * under load every collected event costing its own write(2) was the largest
   * item of the collection profile. Each append resolves only once its record is
   * written, so "published" still means "on disk"; memory (sequence, dedupe,
   * consumers) changes only after the write, so a failed write leaves no trace
   * and every append of that batch rejects.
   */
  append(subject: string, json: string, msgId: string | undefined, trace?: Readonly<Record<string, string>>): Promise<boolean> {
    const now = Date.now();
    if (msgId !== undefined && (this.dedupe.isDuplicate(msgId, now) || this.unwrittenIds.has(msgId))) return Promise.resolve(false);
    const { maxBytes } = this.options;
    // full: refused before anything changes (no sequence, no dedupe entry, no write)
    if (maxBytes !== undefined && this.heldBytes + json.length > maxBytes) return Promise.reject(new StreamFullError(this.name, maxBytes));
    this.heldBytes += json.length;
    const message: StoredMessage = { seq: this.last + this.unwritten.length + 1, ts: now, subject, json };
    if (msgId !== undefined) message.msgId = msgId;
    if (trace !== undefined) message.trace = trace;
    if (!this.journal) {
      this.commit([message]);
      return Promise.resolve(true);
    }
    if (msgId !== undefined) this.unwrittenIds.add(msgId);
    if (this.unwritten.length === 0) setImmediate(() => this.writeUnwritten());
    return new Promise<boolean>((resolve, reject) => this.unwritten.push({ message, resolve, reject }));
  }

  /** Writes the appends waiting since this turn began (see `append`); a no-op when none wait. */
  private writeUnwritten(): void {
    const batch = this.unwritten;
    if (batch.length === 0) return;
    this.unwritten = [];
    this.unwrittenIds.clear();
    const messages = batch.map((pending) => pending.message);
    try {
      this.journal!.appendAll(messages);
    } catch (error) {
      for (const message of messages) this.heldBytes -= message.json.length;
      for (const pending of batch) pending.reject(error);
      return;
    }
    this.commit(messages);
    for (const pending of batch) pending.resolve(true);
  }

  /** Makes written messages visible: sequence, dedupe window, consumers, compaction. */
  private commit(messages: StoredMessage[]): void {
    for (const message of messages) {
      this.items.push(message);
      if (message.msgId !== undefined) this.dedupe.remember(message.msgId, message.ts);
    }
    this.last = messages.at(-1)!.seq;
    for (const durable of this.durables.values()) durable.scheduleDispatch();
    if (this.journalBytes > this.nextCompactionAt) this.scheduleMaintenance();
  }

  /** Name → filter of every durable known for the stream (restored from disk too). */
  durableFilters(): Map<string, string | undefined> {
    return new Map([...this.durables].map(([name, durable]) => [name, durable.filterSubject]));
  }

  /** The durable with this name, created (and its settings persisted) when new. */
  durable(name: string, settings: DurableSettings): LocalDurable {
    const existing = this.durables.get(name);
    if (existing) {
      existing.configure(settings, false);
      return existing;
    }
    return this.openDurable(name, settings);
  }

  /** Drops messages older than max age (and lets a work queue compact its journal). */
  expire(now: number): void {
    if (this.configValue.retention === 'workqueue' && this.journal && this.firstSeq - 1 > this.journal.baseSeq) this.scheduleMaintenance();
    const maxAge = this.configValue.maxAgeMs;
    if (!maxAge) return;
    const cutoff = now - maxAge;
    let through = -1;
    for (let i = this.head; i < this.items.length; i++) {
      const m = this.items[i] as StoredMessage;
      if (m.ts >= cutoff) break;
      through = m.seq;
    }
    if (through < 0) return;
    this.dropThrough(through);
    for (const durable of this.durables.values()) durable.onTrimmed(this.firstSeq);
    this.scheduleMaintenance();
  }

  /** Releases done messages from memory and compacts files that grew large. */
  maintain(): void {
    if (this.closed) return;
    this.releaseDone();
    const journal = this.journal;
    const now = Date.now();
    const workQueueDue = this.configValue.retention === 'workqueue' && now - this.lastCompactionAt >= WORKQUEUE_COMPACT_INTERVAL_MS;
    if (journal && (journal.sizeBytes > this.nextCompactionAt || workQueueDue)) {
      const base = this.firstSeq - 1;
      if (base > journal.baseSeq) {
        journal.compact(base, this.items.slice(this.head));
        this.lastCompactionAt = now;
        for (const [name, log] of this.ackLogs) this.compactAckLog(name, log);
        // Still big after compaction means mostly unacked messages: wait until it
        // doubles before rewriting again, or every publish would trigger a rewrite.
        this.nextCompactionAt = Math.max(this.options.compactThresholdBytes, 2 * journal.sizeBytes);
      }
    }
    for (const [name, log] of this.ackLogs) {
      if (log.sizeBytes > (this.ackLogCompactAt.get(name) ?? this.ackLogThreshold())) this.compactAckLog(name, log);
    }
  }

  async close(): Promise<void> {
    // appends already accepted are written, not dropped
    this.writeUnwritten();
    this.closed = true;
    for (const durable of this.durables.values()) durable.close();
    for (const log of this.ackLogs.values()) log.close();
    this.journal?.close();
  }

  /** Closes the stream and deletes its files (a superseded, empty stream). */
  async remove(): Promise<void> {
    await this.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private openDurable(name: string, settings: DurableSettings | undefined): LocalDurable {
    let progress: DurableProgress = { floor: 0, done: new Set(), deliveries: new Map() };
    let sink = NO_PROGRESS_SINK;
    if (this.dir) {
      const opened = DurableAckLog.open(path.join(this.dir, 'durables', `${name}.acks`), this.options.fsync);
      progress = opened.progress;
      sink = opened.log;
      this.ackLogs.set(name, opened.log);
    }
    // A durable loaded from disk before its consume(): the defaults only matter for
    // the filter (retention); consume() brings the real settings.
    const effective = settings ?? progress.settings ?? { ackWaitMs: DEFAULT_ACK_WAIT_MS, maxDeliver: DEFAULT_MAX_DELIVER };
    const durable = new LocalDurable(name, this, { ...progress, settings: effective }, sink, {
      logger: this.options.logger,
      backoff: this.options.backoff,
      maxAckPending: this.options.maxAckPending,
      onFloorAdvanced: () => this.scheduleMaintenance(),
    });
    if (settings) durable.configure(settings, progress.settings === undefined);
    this.durables.set(name, durable);
    return durable;
  }

  private releaseDone(): void {
    if (this.durables.size === 0) return;
    let minFloor = Infinity;
    for (const durable of this.durables.values()) minFloor = Math.min(minFloor, durable.floor);
    if (minFloor >= this.firstSeq) this.dropThrough(minFloor);
  }

  private dropThrough(seq: number): void {
    while (this.head < this.items.length && (this.items[this.head] as StoredMessage).seq <= seq) {
      this.heldBytes -= (this.items[this.head] as StoredMessage).json.length;
      this.head++;
    }
    // Reclaim the array now and then rather than shifting on every release.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  private compactAckLog(name: string, log: DurableAckLog): void {
    const durable = this.durables.get(name);
    if (!durable) return;
    log.compact(durable.snapshot());
    this.ackLogCompactAt.set(name, Math.max(this.ackLogThreshold(), 2 * log.sizeBytes));
  }

  private ackLogThreshold(): number {
    return Math.max(64 * 1024, this.options.compactThresholdBytes / 16);
  }

  private scheduleMaintenance(): void {
    if (this.maintenanceScheduled || this.closed) return;
    this.maintenanceScheduled = true;
    setImmediate(() => {
      this.maintenanceScheduled = false;
      this.maintain();
    });
  }
}
