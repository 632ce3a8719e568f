import type { DeliveredMessage } from './bus.js';
import type { BusLogger } from './bus-logger.js';
import type { DurableProgress, DurableSettings } from './local-ack-log.js';
import type { StoredMessage } from './local-stream-journal.js';
import { decodePayload } from './payload-codec.js';
import type { RedeliveryBackoff } from './redelivery-backoff.js';
import { settleWithin } from './settle-within.js';
import { subjectMatches } from './subject-match.js';

/** The stream as a durable sees it: messages by sequence number. */
export interface MessageSource {
  readonly name: string;
  /** Seq of the oldest message still held (lastSeq + 1 when none). */
  readonly firstSeq: number;
  readonly lastSeq: number;
  get(seq: number): StoredMessage | undefined;
}

/** Where a durable persists its progress (the ack log, or nothing in memory-only mode). */
export interface DurableProgressSink {
  recordSettings(settings: DurableSettings): void;
  recordDone(seq: number, how: 'ack' | 'term'): void;
  recordDelivered(seqs: readonly number[]): void;
}

export interface DurableEnvironment {
  logger: BusLogger;
  backoff: RedeliveryBackoff;
  /** Default of the most unacked messages out at once across all members (like JetStream max_ack_pending). */
  maxAckPending: number;
  /** Called when the floor moved, so the stream can release memory and compact. */
  onFloorAdvanced(): void;
}

type Handler = (msg: DeliveredMessage<unknown>) => Promise<void>;

/** One consume() call attached to a durable. Members of one durable split its messages. */
export interface DurableMember {
  readonly handler: Handler;
  /** hand the payload's JSON text, unparsed (ConsumeOptions.payloadText) */
  readonly payloadText: boolean;
  stopped: boolean;
  readonly running: Set<Promise<void>>;
}

/** One delivery of one message: acks and naks are matched against the current lease. */
interface Lease {
  readonly seq: number;
  readonly deliveryCount: number;
  timer: NodeJS.Timeout | undefined;
  /** Settled once: by the handler's own ack() or nak(), else by its outcome (LocalDelivery.settle). */
  settledByHandler: boolean;
}

/**
 * Delivery state of one durable consumer of a LocalBus stream, with the same
 * semantics as a JetStream pull consumer with explicit acks:
 *
 * - first deliveries go out in stream order; redeliveries go before new messages;
 * - a message is leased to one member; the lease ends with ack, nak (redeliver after
 *   the given delay) or the ack wait running out (redeliver now);
 * - after maxDeliver deliveries a message is given up: marked done and logged once;
 * - an ack from an older delivery still counts (the work was done), a nak from one
 *   does not (the message has already been handed out again).
 */
export class LocalDurable {
  private settingsValue: DurableSettings;
  private floorSeq: number;
  private readonly doneAbove: Set<number>;
  private readonly deliveries: Map<number, number>;
  private readonly leases = new Map<number, Lease>();
  /** seq -> earliest redelivery time */
  private readonly redeliverAt = new Map<number, number>();
  /** Highest seq considered for first delivery. */
  private cursor: number;
  private readonly members: DurableMember[] = [];
  private nextMember = 0;
  private dispatchScheduled = false;
  private redeliveryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * Filter verdict per subject of the latest settings: every durable looks at every
   * message of the stream (8 shard durables × each event), over a handful of subjects.
   */
  private readonly filterVerdicts = new Map<string, boolean>();

  constructor(
    readonly name: string,
    private readonly source: MessageSource,
    restored: DurableProgress & { settings: DurableSettings },
    private readonly sink: DurableProgressSink,
    private readonly env: DurableEnvironment,
  ) {
    this.settingsValue = restored.settings;
    this.floorSeq = Math.max(restored.floor, source.firstSeq - 1);
    this.doneAbove = new Set([...restored.done].filter((seq) => seq > this.floorSeq));
    this.deliveries = new Map([...restored.deliveries].filter(([seq]) => seq > this.floorSeq));
    // Unacked messages of a previous run are found again by scanning from the floor.
    this.cursor = this.floorSeq;
    this.advanceFloor();
  }

  /** The filter of the latest consume() (work-queue overlap checks). */
  get filterSubject(): string | undefined {
    return this.settingsValue.filterSubject;
  }

  /** Every seq <= floor is done for this durable. */
  get floor(): number {
    return this.floorSeq;
  }

  /** Latest consume() wins, as with a JetStream consumer update. */
  configure(settings: DurableSettings, persist: boolean): void {
    const changed = JSON.stringify(settings) !== JSON.stringify(this.settingsValue);
    this.settingsValue = settings;
    this.filterVerdicts.clear();
    if (changed || persist) this.sink.recordSettings(settings);
    if (changed) {
      this.advanceFloor();
      this.scheduleDispatch();
    }
  }

  addMember(handler: Handler, payloadText = false): DurableMember {
    const member: DurableMember = { handler, payloadText, stopped: false, running: new Set() };
    this.members.push(member);
    this.scheduleDispatch();
    return member;
  }

  /** Stops giving the member messages, then waits for its running handlers (bounded by the ack wait). */
  async removeMember(member: DurableMember): Promise<void> {
    member.stopped = true;
    const i = this.members.indexOf(member);
    if (i >= 0) this.members.splice(i, 1);
    await settleWithin(member.running, this.settingsValue.ackWaitMs);
  }

  /** New messages may be available (called after publish). Never delivers synchronously. */
  scheduleDispatch(): void {
    if (this.dispatchScheduled || this.closed) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  /** The stream dropped every message below `firstSeq` (max age): they are done for us too. */
  onTrimmed(firstSeq: number): void {
    if (firstSeq - 1 <= this.floorSeq) return;
    this.floorSeq = firstSeq - 1;
    if (this.cursor < this.floorSeq) this.cursor = this.floorSeq;
    for (const seq of this.doneAbove) if (seq <= this.floorSeq) this.doneAbove.delete(seq);
    for (const seq of this.deliveries.keys()) if (seq <= this.floorSeq) this.deliveries.delete(seq);
    for (const seq of this.redeliverAt.keys()) if (seq <= this.floorSeq) this.redeliverAt.delete(seq);
    this.advanceFloor();
  }

  /** A compact description of the progress, for rewriting the ack log. */
  snapshot(): DurableProgress {
    return {
      settings: this.settingsValue,
      floor: this.floorSeq,
      done: new Set(this.doneAbove),
      deliveries: new Map(this.deliveries),
    };
  }

  /** Stops timers; state stays as persisted. Members must have been removed first. */
  close(): void {
    this.closed = true;
    for (const lease of this.leases.values()) clearTimeout(lease.timer);
    this.leases.clear();
    clearTimeout(this.redeliveryTimer);
  }

  private dispatch(): void {
    if (this.closed) return;
    const active = this.members.filter((m) => !m.stopped);
    if (active.length === 0) return;
    let budget = (this.settingsValue.maxAckPending ?? this.env.maxAckPending) - this.leases.size;
    const batch: Array<{ lease: Lease; message: StoredMessage; member: DurableMember }> = [];
    const handOut = (message: StoredMessage): boolean => {
      const lease = this.lease(message);
      if (!lease) return false;
      const member = active[this.nextMember++ % active.length] as DurableMember;
      batch.push({ lease, message, member });
      budget--;
      return true;
    };

    // Redeliveries first, oldest first, like JetStream.
    if (budget > 0 && this.redeliverAt.size > 0) {
      const now = Date.now();
      const due = [...this.redeliverAt].filter(([, at]) => at <= now).map(([seq]) => seq);
      due.sort((a, b) => a - b);
      for (const seq of due) {
        if (budget <= 0) break;
        this.redeliverAt.delete(seq);
        const message = this.source.get(seq);
        if (message && !this.isDone(seq)) handOut(message);
      }
    }
    // Then first deliveries, in stream order.
    while (budget > 0 && this.cursor < this.source.lastSeq) {
      const seq = Math.max(this.cursor + 1, this.source.firstSeq);
      this.cursor = seq;
      if (this.isDone(seq) || this.leases.has(seq) || this.redeliverAt.has(seq)) continue;
      const message = this.source.get(seq);
      if (message) handOut(message);
    }
    this.advanceFloor();
    this.armRedeliveryTimer(budget > 0);
    if (batch.length === 0) return;

    // Persist "delivered" before any handler runs: if a handler takes the process
    // down, the next run still counts this delivery towards maxDeliver.
    this.sink.recordDelivered(batch.map((b) => b.lease.seq));
    for (const { lease, message, member } of batch) this.run(member, lease, message);
  }

  /** Starts a delivery, or gives the message up when it already had maxDeliver of them. */
  private lease(message: StoredMessage): Lease | undefined {
    const previous = this.deliveries.get(message.seq) ?? 0;
    const { maxDeliver, ackWaitMs } = this.settingsValue;
    if (maxDeliver > 0 && previous >= maxDeliver) {
      // Only reachable after a restart: the deliveries happened in an earlier run.
      this.giveUp(message.seq, previous, 'maxDeliver reached in an earlier run');
      return undefined;
    }
    const lease: Lease = { seq: message.seq, deliveryCount: previous + 1, timer: undefined, settledByHandler: false };
    this.deliveries.set(message.seq, lease.deliveryCount);
    lease.timer = setTimeout(() => this.expire(lease), ackWaitMs);
    lease.timer.unref();
    this.leases.set(message.seq, lease);
    return lease;
  }

  private run(member: DurableMember, lease: Lease, message: StoredMessage): void {
    let data: unknown;
    try {
      data = member.payloadText ? message.json : decodePayload(message.json);
    } catch (err) {
      // Only a damaged journal line gets here; redelivering cannot repair it.
      clearTimeout(lease.timer);
      this.leases.delete(lease.seq);
      this.giveUp(lease.seq, lease.deliveryCount, `payload is not JSON: ${String(err)}`);
      return;
    }
    const running = this.runHandler(member, new LocalDelivery(message, data, lease, this));
    member.running.add(running);
    void running.finally(() => member.running.delete(running));
  }

  /** The handler's outcome settles the lease unless the handler settled it itself. */
  private async runHandler(member: DurableMember, delivered: LocalDelivery): Promise<void> {
    try {
      await member.handler(delivered);
      delivered.settle('ack');
    } catch (err) {
      delivered.settle('nak', this.env.backoff(delivered.deliveryCount), `handler threw: ${String(err)}`);
    }
  }

  /** Ends a lease with success (also called by LocalDelivery). */
  ack(lease: Lease): void {
    if (this.closed || this.isDone(lease.seq)) return;
    // Accept it even from an expired lease: the work is done; a copy still running
    // elsewhere will find the message done and its own ack becomes a no-op.
    const current = this.leases.get(lease.seq);
    if (current) {
      clearTimeout(current.timer);
      this.leases.delete(lease.seq);
    }
    this.redeliverAt.delete(lease.seq);
    this.markDone(lease.seq, 'ack');
    this.scheduleDispatch();
  }

  /** Ends a lease for redelivery after `delayMs` (also called by LocalDelivery). */
  nak(lease: Lease, delayMs: number, reason: string): void {
    // Stale (the ack wait already ran out and the message went out again): ignore,
    // or the message would be delivered twice more.
    if (this.closed || this.leases.get(lease.seq) !== lease) return;
    clearTimeout(lease.timer);
    this.leases.delete(lease.seq);
    this.requeue(lease.seq, delayMs, reason);
  }

  private expire(lease: Lease): void {
    if (this.closed || this.leases.get(lease.seq) !== lease) return;
    this.leases.delete(lease.seq);
    this.requeue(lease.seq, 0, 'ack wait expired');
  }

  private requeue(seq: number, delayMs: number, reason: string): void {
    if (this.isDone(seq)) return;
    const deliveries = this.deliveries.get(seq) ?? 0;
    const { maxDeliver } = this.settingsValue;
    if (maxDeliver > 0 && deliveries >= maxDeliver) {
      this.giveUp(seq, deliveries, reason);
    } else {
      this.redeliverAt.set(seq, Date.now() + Math.max(0, delayMs));
    }
    this.scheduleDispatch();
  }

  private giveUp(seq: number, deliveries: number, reason: string): void {
    this.markDone(seq, 'term');
    this.env.logger('warn', 'message dropped after its last delivery', {
      stream: this.source.name,
      durable: this.name,
      seq,
      subject: this.source.get(seq)?.subject,
      deliveries,
      reason,
    });
  }

  private markDone(seq: number, how: 'ack' | 'term'): void {
    this.doneAbove.add(seq);
    this.deliveries.delete(seq);
    this.sink.recordDone(seq, how);
    this.advanceFloor();
  }

  private isDone(seq: number): boolean {
    if (seq <= this.floorSeq || this.doneAbove.has(seq)) return true;
    const message = this.source.get(seq);
    // Gone from the stream (max age, damaged journal line), or not ours (filter).
    if (!message) return true;
    const filter = this.settingsValue.filterSubject;
    if (filter === undefined) return false;
    let matches = this.filterVerdicts.get(message.subject);
    if (matches === undefined) {
      matches = subjectMatches(filter, message.subject);
      // bounded: a stream with unbounded distinct subjects just stops memoising
      if (this.filterVerdicts.size < 1024) this.filterVerdicts.set(message.subject, matches);
    }
    return !matches;
  }

  private advanceFloor(): void {
    const before = this.floorSeq;
    while (this.floorSeq < this.source.lastSeq && this.isDone(this.floorSeq + 1)) {
      this.floorSeq++;
      this.doneAbove.delete(this.floorSeq);
      this.deliveries.delete(this.floorSeq);
    }
    if (this.cursor < this.floorSeq) this.cursor = this.floorSeq;
    if (this.floorSeq > before) this.env.onFloorAdvanced();
  }

  /**
   * Wakes dispatch when the earliest pending redelivery is due. Every pending entry
   * counts, including one that fell due since dispatch read the clock (skipping those
   * left a message waiting for an unrelated wake-up). When no lease slot is free, a
   * due entry needs no timer: the ack, nak or expiry that frees a slot dispatches.
   */
  private armRedeliveryTimer(slotsFree: boolean): void {
    clearTimeout(this.redeliveryTimer);
    this.redeliveryTimer = undefined;
    if (this.redeliverAt.size === 0 || this.closed) return;
    const now = Date.now();
    let earliest = Infinity;
    for (const at of this.redeliverAt.values()) if (at < earliest) earliest = at;
    if (earliest <= now && !slotsFree) return;
    // at least 1 ms: a due entry is picked up on the next turn, never in a tight loop
    this.redeliveryTimer = setTimeout(() => this.scheduleDispatch(), Math.max(1, earliest - now));
    this.redeliveryTimer.unref();
  }
}

/**
 * One delivery as the handler sees it: the first of ack() and nak() settles the
 * lease. A class rather than closures made per message (every collected event
 * passes here; the ingest heap profile showed them), like NatsDelivery.
 */
class LocalDelivery implements DeliveredMessage<unknown> {
  readonly subject: string;
  readonly deliveryCount: number;
  readonly streamSeq: number;
  readonly storedAt: number;
  msgId?: string;
  traceHeaders?: Readonly<Record<string, string>>;

  constructor(
    message: StoredMessage,
    readonly data: unknown,
    private readonly lease: Lease,
    private readonly durable: Pick<LocalDurable, 'ack' | 'nak'>,
  ) {
    this.subject = message.subject;
    this.deliveryCount = lease.deliveryCount;
    this.streamSeq = message.seq;
    this.storedAt = message.ts;
    if (message.msgId !== undefined) this.msgId = message.msgId;
    if (message.trace !== undefined) this.traceHeaders = message.trace;
  }

  async ack(): Promise<void> {
    this.settle('ack');
  }

  async nak(delayMs?: number): Promise<void> {
    this.settle('nak', delayMs ?? 0, 'nak');
  }

  /** Settles the lease once, whoever comes first: the handler, or its outcome (LocalDurable.runHandler). */
  settle(how: 'ack' | 'nak', delayMs = 0, reason = 'nak'): void {
    if (this.lease.settledByHandler) return;
    this.lease.settledByHandler = true;
    if (how === 'ack') this.durable.ack(this.lease);
    else this.durable.nak(this.lease, delayMs, reason);
  }
}
