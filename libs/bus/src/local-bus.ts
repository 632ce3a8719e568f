import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { reportBusStreams } from '@sightline/telemetry';
import type {
  Bus,
  ConsumeOptions,
  ConsumeSubject,
  DeliveredMessage,
  PublishOptions,
  PublishSubject,
  StreamConfig,
  StreamState,
  SubjectCatalogue,
  Subscription,
} from './bus.js';
import type { SubjectPayloads } from './streams.js';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_MAX_ACK_PENDING, DEFAULT_MAX_DELIVER } from './bus-defaults.js';
import { BusClosedError, NoStreamForSubjectError, StreamNotFoundError, WorkQueueConflictError } from './bus-errors.js';
import { consoleBusLogger, type BusLogger } from './bus-logger.js';
import { DEFAULT_DEDUPE_WINDOW_MS } from './dedupe-window.js';
import { lockJournalDir } from './journal-dir-lock.js';
import { publishWithTelemetry } from './publish-telemetry.js';
import { LocalStream, type LocalStreamOptions } from './local-stream.js';
import { decodePayload, encodePayload } from './payload-codec.js';
import { defaultRedeliveryBackoff, type RedeliveryBackoff } from './redelivery-backoff.js';
import { isValidPublishSubject, isValidSubjectPattern, subjectMatches, subjectsOverlap } from './subject-match.js';

export const DEFAULT_COMPACT_THRESHOLD_BYTES = 64 * 1024 * 1024;
/** Stream and durable names become file names: keep them to a portable alphabet. */
const SAFE_NAME = /^[A-Za-z0-9_-]{1,200}$/;
const MAX_CACHED_ROUTES = 4096;

export interface LocalBusOptions {
  /**
   * Directory for the journals. With it, a publish is on disk before it resolves and
   * acks are recorded, so a crashed process loses nothing acknowledged. Without it
   * the bus lives in memory only (tests).
   */
  journalDir?: string;
  /** fsync every journal/ack-log append: survive a machine crash too, at a large cost in speed. */
  fsync?: boolean;
  /** Rewrite a journal without its fully acked prefix once it exceeds this size. Default 64 MiB. */
  compactThresholdBytes?: number;
  /** Reports messages given up after maxDeliver, crashing broadcast handlers, journal repairs. */
  logger?: BusLogger;
  /** Delay before redelivering a message whose handler threw. */
  redeliveryBackoff?: RedeliveryBackoff;
  /** Default of `ConsumeOptions.maxAckPending` (like JetStream max_ack_pending). Default 512. */
  maxAckPending?: number;
  /** Duplicate msgIds are dropped within this window. Default 2 minutes, as on NatsBus. */
  dedupeWindowMs?: number;
  /**
   * Most payload bytes (JSON text) one stream holds unconsumed; a publish past it
   * rejects with `StreamFullError` and stores nothing. Every held message also
   * lives in this process's memory (about 550 B of heap for a 300-byte collected
   * event), so this bounds the memory of a backlog (ingest down or slower than
   * collection). Default: no limit.
   */
  maxStreamBytes?: number;
}

interface BroadcastSubscriber {
  pattern: string;
  handler: (data: unknown, subject: string) => void | Promise<void>;
  stopped: boolean;
  running: Set<Promise<void>>;
}

/**
 * Single-process Bus with the NatsBus semantics (see `LocalDurable` for delivery
 * rules, `LocalStream` for retention). The journal is loaded synchronously by the
 * constructor; a journal dir is locked against a second LocalBus.
 */
export class LocalBus<P extends SubjectCatalogue = SubjectPayloads> implements Bus<P> {
  readonly kind = 'local' as const;
  private readonly streams = new Map<string, LocalStream>();
  private readonly streamOptions: LocalStreamOptions;
  private readonly logger: BusLogger;
  private readonly streamsDir: string | undefined;
  private readonly releaseLock: (() => void) | undefined;
  private readonly consumers = new Set<Subscription>();
  private readonly subscribers = new Set<BroadcastSubscriber>();
  /**
   * Publish subject → its stream and live subscribers. A publish on the hot path
   * (every collected event) then costs one map lookup instead of splitting and
   * matching the subject against every pattern. Dropped whenever streams or
   * subscribers change; bounded, since subjects come from a finite catalogue.
   */
  private readonly routes = new Map<string, { stream: LocalStream | undefined; subscribers: BroadcastSubscriber[] }>();
  private readonly expiryTimer: NodeJS.Timeout;
  private readonly stopReporting: () => void;
  private closed = false;

  constructor(options: LocalBusOptions = {}) {
    this.logger = options.logger ?? consoleBusLogger;
    this.streamOptions = {
      logger: this.logger,
      backoff: options.redeliveryBackoff ?? defaultRedeliveryBackoff,
      maxAckPending: options.maxAckPending ?? DEFAULT_MAX_ACK_PENDING,
      dedupeWindowMs: options.dedupeWindowMs ?? DEFAULT_DEDUPE_WINDOW_MS,
      compactThresholdBytes: options.compactThresholdBytes ?? DEFAULT_COMPACT_THRESHOLD_BYTES,
      fsync: options.fsync ?? false,
      maxBytes: options.maxStreamBytes,
    };
    if (options.journalDir) {
      mkdirSync(options.journalDir, { recursive: true });
      this.releaseLock = lockJournalDir(options.journalDir);
      this.streamsDir = path.join(options.journalDir, 'streams');
      mkdirSync(this.streamsDir, { recursive: true });
      try {
        for (const name of readdirSync(this.streamsDir)) {
          const dir = path.join(this.streamsDir, name);
          if (LocalStream.exists(dir)) this.streams.set(name, LocalStream.open(dir, undefined, this.streamOptions));
        }
      } catch (err) {
        this.releaseLock();
        throw err;
      }
    }
    // Max-age expiry needs a clock; a second's precision is plenty for ages in hours.
    this.expiryTimer = setInterval(() => {
      const now = Date.now();
      for (const stream of this.streams.values()) stream.expire(now);
    }, 1000);
    this.expiryTimer.unref();
    // what each stream holds, for /metrics (read at scrape time)
    this.stopReporting = reportBusStreams(() =>
      [...this.streams.values()].map((stream) => ({
        stream: stream.name,
        messages: stream.retainedCount,
        bytes: stream.retainedBytes,
        limitBytes: options.maxStreamBytes,
      })),
    );
  }

  async ensureStreams(streams: readonly StreamConfig[]): Promise<void> {
    this.assertOpen();
    this.routes.clear();
    for (const config of streams) {
      if (!SAFE_NAME.test(config.name)) throw new Error(`invalid stream name "${config.name}" (letters, digits, _ and - only)`);
      if (config.supersedes) await this.retireSuperseded(config.supersedes);
      for (const subject of config.subjects) {
        if (!isValidSubjectPattern(subject)) throw new Error(`invalid subject "${subject}" for stream ${config.name}`);
      }
      for (const other of this.streams.values()) {
        if (other.name === config.name) continue;
        const clash = config.subjects.find((s) => other.config.subjects.some((o) => subjectsOverlap(s, o)));
        if (clash) throw new Error(`subjects of stream ${config.name} overlap with stream ${other.name} ("${clash}")`);
      }
      const copy: StreamConfig = { ...config, subjects: [...config.subjects] };
      const existing = this.streams.get(config.name);
      if (existing) {
        if (JSON.stringify(existing.config) !== JSON.stringify(copy)) existing.updateConfig(copy);
      } else {
        const stream = this.streamsDir
          ? LocalStream.open(path.join(this.streamsDir, config.name), copy, this.streamOptions)
          : LocalStream.inMemory(copy, this.streamOptions);
        this.streams.set(config.name, stream);
      }
    }
  }

  async publish<S extends PublishSubject<P>>(subject: S, data: P[S], opts?: PublishOptions): Promise<void> {
    this.assertOpen();
    const route = this.routeOf(subject);
    if (!route.stream) throw new NoStreamForSubjectError(subject);
    // Resolves once journaled (with this turn's other publishes, one write); consumers are woken asynchronously.
    const json = encodePayload(data);
    const stream = route.stream;
    await publishWithTelemetry('local', subject, (trace) => stream.append(subject, json, opts?.msgId, trace));
    // As on NATS, where a JetStream publish is also a plain message on its subject:
    // live subscribers see it too (e.g. caches that only need news, test observers).
    for (const subscriber of route.subscribers) {
      if (!subscriber.stopped) this.deliverBroadcast(subscriber, subject, json);
    }
  }

  async consume<F extends ConsumeSubject<P> = ConsumeSubject<P>>(opts: ConsumeOptions<P[F], F>): Promise<Subscription> {
    this.assertOpen();
    const stream = this.streams.get(opts.stream);
    if (!stream) throw new StreamNotFoundError(opts.stream);
    if (!SAFE_NAME.test(opts.durable)) throw new Error(`invalid durable name "${opts.durable}" (letters, digits, _ and - only)`);
    if (opts.filterSubject !== undefined) {
      if (!isValidSubjectPattern(opts.filterSubject)) throw new Error(`invalid filter subject "${opts.filterSubject}"`);
      if (!stream.config.subjects.some((s) => subjectsOverlap(s, opts.filterSubject as string))) {
        throw new Error(`filter subject "${opts.filterSubject}" matches nothing stream ${stream.name} captures`);
      }
    }
    if (opts.maxAckPending !== undefined && (!Number.isSafeInteger(opts.maxAckPending) || opts.maxAckPending < 1)) {
      throw new RangeError(`maxAckPending must be a positive integer, got ${opts.maxAckPending}`);
    }
    if (stream.config.retention === 'workqueue') {
      // As on JetStream: each message of a work queue belongs to exactly one durable.
      for (const [name, filter] of stream.durableFilters()) {
        if (name === opts.durable) continue;
        if (filter === undefined || opts.filterSubject === undefined || subjectsOverlap(filter, opts.filterSubject)) {
          throw new WorkQueueConflictError(stream.name, opts.durable, { detail: `overlaps durable "${name}"` });
        }
      }
    }
    const settings = {
      ackWaitMs: opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS,
      maxDeliver: opts.maxDeliver ?? DEFAULT_MAX_DELIVER,
      ...(opts.filterSubject !== undefined ? { filterSubject: opts.filterSubject } : {}),
      ...(opts.maxAckPending !== undefined ? { maxAckPending: opts.maxAckPending } : {}),
    };
    const durable = stream.durable(opts.durable, settings);
    const member = durable.addMember(opts.handler as (msg: DeliveredMessage<unknown>) => Promise<void>, opts.payloadText === true);
    let stopping: Promise<void> | undefined;
    const subscription: Subscription = {
      stop: () => {
        stopping ??= (async () => {
          this.consumers.delete(subscription);
          await durable.removeMember(member);
        })();
        return stopping;
      },
    };
    this.consumers.add(subscription);
    return subscription;
  }

  async broadcast<S extends PublishSubject<P>>(subject: S, data: P[S]): Promise<void> {
    this.assertOpen();
    if (!isValidPublishSubject(subject)) throw new Error(`invalid broadcast subject "${subject}"`);
    const json = encodePayload(data);
    for (const subscriber of this.subscribers) {
      if (!subscriber.stopped && subjectMatches(subscriber.pattern, subject)) this.deliverBroadcast(subscriber, subject, json);
    }
  }

  async subscribe<F extends ConsumeSubject<P>>(subject: F, handler: (data: P[F], subject: string) => void | Promise<void>): Promise<Subscription> {
    this.assertOpen();
    if (!isValidSubjectPattern(subject)) throw new Error(`invalid subscription subject "${subject}"`);
    const subscriber: BroadcastSubscriber = {
      pattern: subject,
      handler: handler as BroadcastSubscriber['handler'],
      stopped: false,
      running: new Set(),
    };
    this.subscribers.add(subscriber);
    this.routes.clear();
    return {
      stop: async () => {
        subscriber.stopped = true;
        this.subscribers.delete(subscriber);
        this.routes.clear();
        await Promise.allSettled(subscriber.running);
      },
    };
  }

  async streamState(name: string): Promise<StreamState | undefined> {
    this.assertOpen();
    const stream = this.streams.get(name);
    if (!stream) return undefined;
    return { messages: stream.retainedCount, firstSeq: stream.firstSeq, lastSeq: stream.lastSeq, retention: stream.config.retention ?? 'limits' };
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.expiryTimer);
    this.stopReporting();
    await Promise.all([...this.consumers].map((c) => c.stop()));
    for (const subscriber of this.subscribers) subscriber.stopped = true;
    await Promise.allSettled([...this.subscribers].flatMap((s) => [...s.running]));
    this.subscribers.clear();
    for (const stream of this.streams.values()) await stream.close();
    this.releaseLock?.();
  }

  /** Introspection for tests and diagnostics. */
  streamStats(name: string): { firstSeq: number; lastSeq: number; retained: number; journalBytes: number } | undefined {
    const stream = this.streams.get(name);
    if (!stream) return undefined;
    return { firstSeq: stream.firstSeq, lastSeq: stream.lastSeq, retained: stream.retainedCount, journalBytes: stream.journalBytes };
  }

  /** As on NatsBus: an empty superseded stream is deleted, one still holding messages is narrowed. */
  private async retireSuperseded(old: { name: string; narrowTo: string[] }): Promise<void> {
    const stream = this.streams.get(old.name);
    if (!stream) return;
    this.routes.clear();
    if (stream.retainedCount === 0) {
      this.streams.delete(old.name);
      await stream.remove();
      this.logger('warn', 'superseded stream was empty and is deleted', { stream: old.name });
      return;
    }
    if (JSON.stringify(stream.config.subjects) !== JSON.stringify(old.narrowTo)) stream.updateConfig({ ...stream.config, subjects: [...old.narrowTo] });
    this.logger('warn', 'superseded stream still holds messages; narrowed, deleted once empty', { stream: old.name, messages: stream.retainedCount });
  }

  /** The stream and subscribers of a publish subject (validated once, then cached). */
  private routeOf(subject: string): { stream: LocalStream | undefined; subscribers: BroadcastSubscriber[] } {
    const cached = this.routes.get(subject);
    if (cached) return cached;
    if (!isValidPublishSubject(subject)) throw new Error(`invalid publish subject "${subject}"`);
    const route = { stream: this.streamFor(subject), subscribers: [...this.subscribers].filter((s) => subjectMatches(s.pattern, subject)) };
    if (route.stream) {
      if (this.routes.size >= MAX_CACHED_ROUTES) this.routes.clear();
      this.routes.set(subject, route);
    }
    return route;
  }

  private streamFor(subject: string): LocalStream | undefined {
    for (const stream of this.streams.values()) {
      if (stream.config.subjects.some((pattern) => subjectMatches(pattern, subject))) return stream;
    }
    return undefined;
  }

  private deliverBroadcast(subscriber: BroadcastSubscriber, subject: string, json: string): void {
    // Each subscriber parses its own copy, and never inside broadcast() itself.
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        if (!subscriber.stopped) return subscriber.handler(decodePayload(json), subject);
      })
      .catch((err: unknown) => {
        this.logger('error', 'broadcast handler failed', { subject, error: String(err) });
      })
      .finally(() => subscriber.running.delete(run));
    subscriber.running.add(run);
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError('local');
  }
}
