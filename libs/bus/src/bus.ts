import type { SubjectPayloads } from './streams.js';
import type { StreamConfig, StreamRetention } from './stream-config.js';

export type { StreamConfig, StreamRetention } from './stream-config.js';

/**
 * The message bus as services see it. Two adapters implement it: `NatsBus`
 * (NATS JetStream, production) and `LocalBus` (in-process, single process, backed
 * by an append-only journal on disk so an acknowledged publish survives a crash).
 *
 * Two delivery modes:
 * - durable streams (`publish` + `consume`): a publish resolves only once the message
 *   is stored; each durable consumer group gets every message at least once and a
 *   message is redelivered until its handler acks it;
 * - broadcast (`broadcast` + `subscribe`): fire-and-forget fan-out to every live
 *   subscriber in every process (e.g. key revocations to every gateway replica).
 *
 * Typed by subject: `Bus` (the product's bus) only publishes subjects of the
 * catalogue (`SubjectPayloads`, streams.ts) with their payload type, and a consumer
 * or subscriber of a subject (or of a declared wildcard filter such as
 * `events.collected.*`) receives that payload type. The adapters' own tests use
 * `Bus<UntypedSubjects>` (any subject, unknown payloads).
 */

/** A catalogue: subject (or filter pattern) → payload type. */
export type SubjectCatalogue = object;
/**
 * For the adapters' own tests and tools: every subject allowed, payloads unchecked
 * (`any`, so a test handler may declare the payload shape it published).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UntypedSubjects = Record<string, any>;

/** Keys of a catalogue that are wildcard filters (`*`, `>`): consumable, not publishable. */
type WildcardKey = `${string}*${string}` | `${string}>`;
/** The subjects a catalogue lets one publish (its keys minus wildcard filters). */
export type PublishSubject<P extends SubjectCatalogue = SubjectPayloads> = Exclude<keyof P & string, WildcardKey>;
/** The subjects or filters a catalogue lets one consume or subscribe to. */
export type ConsumeSubject<P extends SubjectCatalogue = SubjectPayloads> = keyof P & string;
/** The product's publishable subjects. */
export type Subject = PublishSubject<SubjectPayloads>;
/** The payload of a product subject or filter. */
export type Payload<S extends ConsumeSubject<SubjectPayloads>> = SubjectPayloads[S];

export interface DeliveredMessage<T = unknown> {
  subject: string;
  data: T;
  /** The publisher's id for the message (deduplication key), when one was given. */
  msgId?: string;
  /** 1 on first delivery, 2+ on redelivery. */
  deliveryCount: number;
  /** The message's sequence number in its stream: the same on every redelivery (a cheap identity). */
  streamSeq?: number;
  /**
   * When its stream stored the message, ms since the epoch (on NATS, the server's
   * clock): how long it waited before this delivery tells a backlog from live traffic.
   */
  storedAt: number;
  /** The publisher's W3C trace context (traceparent/tracestate), when it was tracing. */
  traceHeaders?: Readonly<Record<string, string>>;
  ack(): Promise<void>;
  /** Ask for redelivery, after `delayMs` when given. */
  nak(delayMs?: number): Promise<void>;
}

export interface ConsumeOptions<T = unknown, F extends string = string> {
  stream: string;
  /** Durable consumer name: consumers sharing it split the messages; progress survives restarts. */
  durable: string;
  /** Only messages on this subject (NATS wildcards allowed); default all of the stream. */
  filterSubject?: F;
  /** Unacked messages are redelivered after this long (ms). Default 30 000. */
  ackWaitMs?: number;
  /** After this many deliveries a message is given up (logged and dropped). Default 10. */
  maxDeliver?: number;
  /**
   * Most unacked messages this durable has out at once, all its members together
   * (JetStream `max_ack_pending`). A consumer that acks only after a batch write
   * needs at least its batch size. Default: the bus's (512).
   */
  maxAckPending?: number;
  /**
   * Hand each payload over as its JSON text, unparsed (`data` is then that string,
   * whatever `T` says): for a consumer that passes messages to another thread, which
   * parses them there. Unchecked, so the handler deals with text that is not JSON
   * (only a foreign publisher or a damaged journal line makes some).
   */
  payloadText?: boolean;
  /**
   * Called per message. Resolving without calling ack/nak acks it; throwing naks it
   * (redelivered later).
   */
  handler: (msg: DeliveredMessage<T>) => Promise<void>;
}

export interface Subscription {
  /** Stops delivery; in-flight handlers finish first. */
  stop(): Promise<void>;
}

export interface PublishOptions {
  /** Deduplication id: a second publish with the same id within the window is dropped. */
  msgId?: string;
}

/** What a stream holds now (diagnostics, retention tests). */
export interface StreamState {
  messages: number;
  firstSeq: number;
  lastSeq: number;
  retention: StreamRetention;
}

export interface Bus<P extends SubjectCatalogue = SubjectPayloads> {
  readonly kind: 'nats' | 'local';
  /** Creates or updates the streams (idempotent). */
  ensureStreams(streams: readonly StreamConfig[]): Promise<void>;
  /** Resolves once the message is durably stored in the stream capturing `subject`. */
  publish<S extends PublishSubject<P>>(subject: S, data: P[S], opts?: PublishOptions): Promise<void>;
  /** A durable consumer; with `filterSubject` the handler receives that subject's (or filter's) payload type. */
  consume<F extends ConsumeSubject<P> = ConsumeSubject<P>>(opts: ConsumeOptions<P[F], F>): Promise<Subscription>;
  /** Non-durable fan-out to every current subscriber of `subject`. */
  broadcast<S extends PublishSubject<P>>(subject: S, data: P[S]): Promise<void>;
  subscribe<F extends ConsumeSubject<P>>(subject: F, handler: (data: P[F], subject: string) => void | Promise<void>): Promise<Subscription>;
  /** The stream's current state; undefined when it does not exist. */
  streamState(name: string): Promise<StreamState | undefined>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
