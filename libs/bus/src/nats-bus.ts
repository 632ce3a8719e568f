import { settleNatsRequestsWithoutError } from './nats-request-settle.js';
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StreamInfo,
} from '@nats-io/jetstream';
import { RequestError, connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import type { Bus, ConsumeOptions, ConsumeSubject, PublishOptions, PublishSubject, StreamConfig, StreamState, SubjectCatalogue, Subscription } from './bus.js';
import type { SubjectPayloads } from './streams.js';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_MAX_ACK_PENDING, DEFAULT_MAX_DELIVER } from './bus-defaults.js';
import { BusClosedError, NoStreamForSubjectError, StreamNotFoundError, WorkQueueConflictError } from './bus-errors.js';
import { consoleBusLogger, type BusLogger } from './bus-logger.js';
import { DEFAULT_DEDUPE_WINDOW_MS } from './dedupe-window.js';
import { decodePayload, encodePayload } from './payload-codec.js';
import { defaultRedeliveryBackoff, type RedeliveryBackoff } from './redelivery-backoff.js';
import { settleWithin } from './settle-within.js';
import { publishOptions } from './nats-trace-headers.js';
import { NatsDelivery, giveUpMessage, settleQuietly } from './nats-delivery.js';
import { PublishPerTurn } from './publish-per-turn.js';
import { publishWithTelemetry } from './publish-telemetry.js';
import { readConsumerFigures, type ConsumedDurable } from './nats-consumer-figures.js';
import { reportBusConsumers } from '@sightline/telemetry';

export interface NatsBusOptions {
  /** Reports messages given up after maxDeliver and crashing broadcast handlers. */
  logger?: BusLogger;
  /** Delay before redelivering a message whose handler threw. */
  redeliveryBackoff?: RedeliveryBackoff;
  /**
   * Default of `ConsumeOptions.maxAckPending`: most unacked messages one durable has
   * out at once, all its consumers together (JetStream `max_ack_pending`). This
   * bounds in-flight handlers: every message the server hands out gets its handler
   * started at once, so nothing waits in a client buffer while its ack wait runs down.
   */
  maxAckPending?: number;
}

export interface ConnectNatsBusOptions extends NatsBusOptions {
  /** Connection name shown by the server (`nats server report connections`). */
  name?: string;
}

export async function connectNatsBus<P extends SubjectCatalogue = SubjectPayloads>(url: string, options: ConnectNatsBusOptions = {}): Promise<NatsBus<P>> {
  // Services live long: keep reconnecting instead of giving up after the default 10 tries.
  // noAsyncTraces: no Error (stack capture) built per request for a context only a
  // failure would show; two per JetStream publish were a fifth of the collection profile
  const nc = await connect({ servers: url, name: options.name, maxReconnectAttempts: -1, noAsyncTraces: true });
  // and none built per settled request either (the library's own, see nats-request-settle.ts)
  settleNatsRequestsWithoutError();
  return new NatsBus<P>(nc, options);
}

/**
 * Bus over NATS: `publish`/`consume` on JetStream, `broadcast`/`subscribe` on core NATS.
 *
 * Streams use limits retention by default: a message stays stored until it is older
 * than the stream's `maxAgeMs`, whether or not a consumer exists yet. (Interest
 * retention would discard a tracker event published before ingest's durable consumer
 * was first created — an accepted event lost.) A durable created later starts from
 * the oldest stored message. `workqueue` streams (JetStream WorkQueuePolicy) drop a
 * message once its one durable acked it, and keep it until then.
 */
export class NatsBus<P extends SubjectCatalogue = SubjectPayloads> implements Bus<P> {
  readonly kind = 'nats' as const;
  private readonly js: JetStreamClient;
  private managerPromise: Promise<JetStreamManager> | undefined;
  private readonly logger: BusLogger;
  private readonly backoff: RedeliveryBackoff;
  private readonly maxAckPending: number;
  private readonly active = new Set<Subscription>();
  private readonly publishes = new PublishPerTurn();
  /** the durables this process consumes, by stream/durable: their backlog goes to /metrics */
  private readonly consumed = new Map<string, ConsumedDurable>();
  private stopReporting: (() => void) | undefined;
  private closed = false;

  constructor(
    readonly connection: NatsConnection,
    options: NatsBusOptions = {},
  ) {
    this.js = jetstream(connection);
    this.logger = options.logger ?? consoleBusLogger;
    this.backoff = options.redeliveryBackoff ?? defaultRedeliveryBackoff;
    this.maxAckPending = options.maxAckPending ?? DEFAULT_MAX_ACK_PENDING;
  }

  async ensureStreams(streams: readonly StreamConfig[]): Promise<void> {
    this.assertOpen();
    const jsm = await this.manager();
    for (const stream of streams) await this.ensureStream(jsm, stream);
  }

  async publish<S extends PublishSubject<P>>(subject: S, data: P[S], opts?: PublishOptions): Promise<void> {
    this.assertOpen();
    const payload = encodePayload(data);
    await publishWithTelemetry('nats', subject, async (trace) => {
      try {
        // The server answers only after the stream stored the message; with a msgID it
        // answers "duplicate" instead of storing it again within the duplicate window.
        await this.publishes.defer(() => this.js.publish(subject, payload, publishOptions(opts?.msgId, trace)));
      } catch (err) {
        if (isNoResponders(err)) throw new NoStreamForSubjectError(subject, { cause: err });
        throw err;
      }
    });
  }

  async consume<F extends ConsumeSubject<P> = ConsumeSubject<P>>(opts: ConsumeOptions<P[F], F>): Promise<Subscription> {
    type T = P[F];
    this.assertOpen();
    const ackWaitMs = opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const maxDeliver = opts.maxDeliver ?? DEFAULT_MAX_DELIVER;
    const maxAckPending = opts.maxAckPending ?? this.maxAckPending;
    if (!Number.isSafeInteger(maxAckPending) || maxAckPending < 1) throw new RangeError(`maxAckPending must be a positive integer, got ${maxAckPending}`);
    const config: Partial<ConsumerConfig> = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      max_deliver: maxDeliver,
      max_ack_pending: maxAckPending,
    };
    if (opts.filterSubject) config.filter_subject = opts.filterSubject;

    const jsm = await this.manager();
    try {
      // Creates the durable, or updates it when it exists (the latest consume() wins).
      await jsm.consumers.add(opts.stream, config);
    } catch (err) {
      if (isApiError(err, JetStreamApiCodes.StreamNotFound)) throw new StreamNotFoundError(opts.stream, { cause: err });
      if (!(err instanceof JetStreamApiError)) throw err;
      if (WORK_QUEUE_CONFLICT_CODES.has(err.code)) throw new WorkQueueConflictError(opts.stream, opts.durable, { cause: err, detail: err.message });
      // Newer servers refuse to change a durable through "create"; update it explicitly.
      const { durable_name: _name, ack_policy: _ack, deliver_policy: _deliver, ...updatable } = config;
      // If that fails too, the create error is the one that explains (e.g. a bad filter).
      await jsm.consumers.update(opts.stream, opts.durable, updatable).catch(() => Promise.reject(err));
    }

    this.reportConsumed({ stream: opts.stream, durable: opts.durable, filterSubject: opts.filterSubject });
    const consumer = await this.js.consumers.get(opts.stream, opts.durable);
    // One pull asks for at most this many; the server never exceeds max_ack_pending.
    const messages = await consumer.consume({ max_messages: Math.min(256, maxAckPending) });
    const loop = new NatsConsumeLoop<T>(messages, {
      ...opts,
      ackWaitMs,
      maxDeliver,
      logger: this.logger,
      backoff: this.backoff,
    });
    const subscription: Subscription = {
      stop: async () => {
        this.active.delete(subscription);
        await loop.stop();
      },
    };
    this.active.add(subscription);
    return subscription;
  }

  async broadcast<S extends PublishSubject<P>>(subject: S, data: P[S]): Promise<void> {
    this.assertOpen();
    this.connection.publish(subject, encodePayload(data));
    // Core NATS publish is buffered; flushing makes "resolved" mean "the server has it".
    await this.connection.flush();
  }

  async subscribe<F extends ConsumeSubject<P>>(subject: F, handler: (data: P[F], subject: string) => void | Promise<void>): Promise<Subscription> {
    type T = P[F];
    this.assertOpen();
    const inFlight = new Set<Promise<void>>();
    const sub = this.connection.subscribe(subject, {
      callback: (err, m) => {
        if (err) {
          this.logger('error', 'broadcast subscription failed', { subject, error: String(err) });
          return;
        }
        let data: T;
        try {
          data = decodePayload<T>(m.string());
        } catch (decodeErr) {
          this.logger('error', 'dropped undecodable broadcast', { subject: m.subject, error: String(decodeErr) });
          return;
        }
        const run = Promise.resolve()
          .then(() => handler(data, m.subject))
          .catch((handlerErr: unknown) => {
            // Broadcasts are fire-and-forget: there is nothing to redeliver, only report.
            this.logger('error', 'broadcast handler failed', { subject: m.subject, error: String(handlerErr) });
          })
          .finally(() => inFlight.delete(run));
        inFlight.add(run);
      },
    });
    // Round trip so the server has registered the interest before we return: a
    // broadcast sent right after subscribe() resolves is then guaranteed to arrive.
    await this.connection.flush();
    const subscription: Subscription = {
      stop: async () => {
        this.active.delete(subscription);
        if (!this.connection.isClosed() && !sub.isClosed()) await sub.drain();
        await Promise.allSettled(inFlight);
      },
    };
    this.active.add(subscription);
    return subscription;
  }

  async streamState(name: string): Promise<StreamState | undefined> {
    this.assertOpen();
    try {
      const info = await (await this.manager()).streams.info(name);
      return {
        messages: info.state.messages,
        firstSeq: info.state.first_seq,
        lastSeq: info.state.last_seq,
        retention: info.config.retention === RetentionPolicy.Workqueue ? 'workqueue' : 'limits',
      };
    } catch (err) {
      if (isApiError(err, JetStreamApiCodes.StreamNotFound)) return undefined;
      throw err;
    }
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.connection.flush();
    // Also proves JetStream answers, not just the core server.
    await (await this.manager()).getAccountInfo();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReporting?.();
    // publishes asked for before close go out before the drain, as they would have undeferred
    this.publishes.startWaiting();
    // Stop consumers first so finished handlers' acks go out before the drain.
    await Promise.all([...this.active].map((s) => s.stop()));
    if (!this.connection.isClosed()) await this.connection.drain();
  }

  /** Pending, ack-pending and the oldest unacked message's age of each consumed durable, asked of JetStream when /metrics is scraped. */
  private reportConsumed(durable: ConsumedDurable): void {
    this.consumed.set(`${durable.stream}/${durable.durable}`, durable);
    this.stopReporting ??= reportBusConsumers(async () => {
      if (this.closed) return [];
      const jsm = await this.manager();
      const read = await Promise.allSettled([...this.consumed.values()].map((d) => readConsumerFigures(jsm, d)));
      return read.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    });
  }

  private manager(): Promise<JetStreamManager> {
    // Not cached on failure: JetStream may come up later (ping keeps asking).
    this.managerPromise ??= jetstreamManager(this.connection).catch((err: unknown) => {
      this.managerPromise = undefined;
      throw err;
    });
    return this.managerPromise;
  }

  private async ensureStream(jsm: JetStreamManager, stream: StreamConfig): Promise<void> {
    if (stream.supersedes) await this.retireSuperseded(jsm, stream.supersedes);
    const maxAge = stream.maxAgeMs ? nanos(stream.maxAgeMs) : 0;
    // The server refuses a duplicate window longer than max_age.
    const dedupeMs = stream.maxAgeMs ? Math.min(DEFAULT_DEDUPE_WINDOW_MS, stream.maxAgeMs) : DEFAULT_DEDUPE_WINDOW_MS;
    const wanted = { subjects: stream.subjects, max_age: maxAge, duplicate_window: nanos(dedupeMs) };
    const retention = stream.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits;

    let existing: StreamInfo | undefined;
    try {
      existing = await jsm.streams.info(stream.name);
    } catch (err) {
      if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw err;
    }
    if (!existing) {
      try {
        await jsm.streams.add({ name: stream.name, ...wanted, storage: StorageType.File, retention });
        return;
      } catch (err) {
        // Only "name already in use" means another service created it between our info
        // and add: fall through to update. Any other refusal (e.g. 10065 "subjects
        // overlap with an existing stream" on a shared server) is the real cause; a
        // second info() would hide it behind StreamNotFoundError.
        if (!isApiError(err, STREAM_NAME_IN_USE)) {
          throw new Error(`cannot create JetStream stream ${stream.name} (${stream.subjects.join(', ')}): ${String(err)}`, { cause: err });
        }
        existing = await jsm.streams.info(stream.name);
      }
    }
    if (existing.config.retention !== retention) {
      // JetStream cannot change retention in place (a new stream name + `supersedes`
      // does); keep serving rather than fail start-up.
      this.logger('warn', 'stream exists with a different retention policy; leaving it as is', {
        stream: stream.name,
        retention: existing.config.retention,
        wanted: retention,
      });
    }
    await jsm.streams.update(stream.name, { ...existing.config, ...wanted });
  }

  /**
   * An older stream replaced by a new name: narrowed to subjects the new one does not
   * capture (atomic on the server: a publish lands in exactly one of them, never in
   * neither), and deleted once it holds nothing. Messages it still holds stay
   * readable by its durables until they are consumed or age out.
   */
  private async retireSuperseded(jsm: JetStreamManager, old: { name: string; narrowTo: string[] }): Promise<void> {
    let info: StreamInfo;
    try {
      info = await jsm.streams.info(old.name);
    } catch (err) {
      if (isApiError(err, JetStreamApiCodes.StreamNotFound)) return;
      throw err;
    }
    if (info.state.messages === 0) {
      await jsm.streams.delete(old.name).catch((err: unknown) => {
        if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw err;
      });
      this.logger('warn', 'superseded stream was empty and is deleted', { stream: old.name });
      return;
    }
    const same = info.config.subjects.length === old.narrowTo.length && info.config.subjects.every((s, i) => s === old.narrowTo[i]);
    if (!same) await jsm.streams.update(old.name, { ...info.config, subjects: old.narrowTo });
    this.logger('warn', 'superseded stream still holds messages; narrowed, deleted once empty', {
      stream: old.name,
      messages: info.state.messages,
      subjects: old.narrowTo.join(' '),
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError('nats');
  }
}

interface ConsumeLoopOptions<T> extends ConsumeOptions<T> {
  ackWaitMs: number;
  maxDeliver: number;
  logger: BusLogger;
  backoff: RedeliveryBackoff;
}

/** Runs the handler for every message one pull consumer receives, until stopped. */
class NatsConsumeLoop<T> {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loopDone: Promise<void>;
  private stopping = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly messages: ConsumerMessages,
    private readonly opts: ConsumeLoopOptions<T>,
  ) {
    this.loopDone = this.run();
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      try {
        await this.messages.close();
      } catch {
        // connection already gone: the loop has ended or will with it
      }
      await this.loopDone;
      await settleWithin(this.inFlight, this.opts.ackWaitMs);
    })();
    return this.stopped;
  }

  private async run(): Promise<void> {
    try {
      for await (const m of this.messages) {
        if (this.stopping) {
          // Received but not started: hand it back now instead of after the ack wait.
          settleQuietly(m, 'nak');
          continue;
        }
        const run = this.handle(m).finally(() => this.inFlight.delete(run));
        this.inFlight.add(run);
      }
    } catch (err) {
      if (!this.stopping) {
        this.opts.logger('error', 'consumer stopped receiving', {
          stream: this.opts.stream,
          durable: this.opts.durable,
          error: String(err),
        });
      }
    }
  }

  private async handle(m: JsMsg): Promise<void> {
    const deliveryCount = m.info.deliveryCount;
    let data: T;
    try {
      data = this.opts.payloadText ? (m.string() as T) : decodePayload<T>(m.string());
    } catch (err) {
      // Redelivering cannot fix a payload that is not JSON.
      giveUpMessage(m, this.opts, deliveryCount, `payload is not JSON: ${String(err)}`);
      return;
    }
    const delivery = new NatsDelivery<T>(data, m, this.opts, deliveryCount);
    // The server says nothing when the last delivery times out, so watch for it here.
    const lastDeliveryTimer = delivery.isLastDelivery ? setTimeout(() => delivery.expire(), this.opts.ackWaitMs).unref() : undefined;
    try {
      await this.opts.handler(delivery);
      await delivery.ack();
    } catch (err) {
      delivery.settleWithNak(this.opts.backoff(deliveryCount), `handler threw: ${String(err)}`);
    } finally {
      clearTimeout(lastDeliveryTimer);
    }
  }
}

/** JetStream's refusals of a consumer overlapping another on a work-queue stream. */
const WORK_QUEUE_CONFLICT_CODES: ReadonlySet<number> = new Set([
  10099, // multiple non-filtered consumers not allowed on workqueue stream
  10100, // filtered consumer not unique on workqueue stream
]);

/** JetStream's err_code for "stream name already in use" (not in the client's JetStreamApiCodes). */
const STREAM_NAME_IN_USE = 10058;

function isApiError(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

/** JetStream reports "no stream for this subject" as no responders to the publish request. */
function isNoResponders(err: unknown): boolean {
  if (err instanceof RequestError && err.isNoResponders()) return true;
  if (err instanceof Error && err.name === 'JetStreamNotEnabled') {
    return err.cause instanceof RequestError ? err.cause.isNoResponders() : true;
  }
  return false;
}
