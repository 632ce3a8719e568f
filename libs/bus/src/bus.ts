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
 */
export interface StreamConfig {
  /** Stream name, e.g. `EVENTS`. */
  name: string;
  /** Subjects captured by the stream, NATS syntax (`events.>`). */
  subjects: string[];
  /** Messages are dropped past this age (ms), consumed or not; unset keeps them indefinitely. */
  maxAgeMs?: number;
}

export interface DeliveredMessage<T = unknown> {
  subject: string;
  data: T;
  /** The publisher's id for the message (deduplication key), when one was given. */
  msgId?: string;
  /** 1 on first delivery, 2+ on redelivery. */
  deliveryCount: number;
  ack(): Promise<void>;
  /** Ask for redelivery, after `delayMs` when given. */
  nak(delayMs?: number): Promise<void>;
}

export interface ConsumeOptions<T = unknown> {
  stream: string;
  /** Durable consumer name: consumers sharing it split the messages; progress survives restarts. */
  durable: string;
  /** Only messages on this subject (NATS wildcards allowed); default all of the stream. */
  filterSubject?: string;
  /** Unacked messages are redelivered after this long (ms). Default 30 000. */
  ackWaitMs?: number;
  /** After this many deliveries a message is given up (logged and dropped). Default 10. */
  maxDeliver?: number;
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

export interface Bus {
  readonly kind: 'nats' | 'local';
  /** Creates or updates the streams (idempotent). */
  ensureStreams(streams: readonly StreamConfig[]): Promise<void>;
  /** Resolves once the message is durably stored in the stream capturing `subject`. */
  publish(subject: string, data: unknown, opts?: PublishOptions): Promise<void>;
  consume<T = unknown>(opts: ConsumeOptions<T>): Promise<Subscription>;
  /** Non-durable fan-out to every current subscriber of `subject`. */
  broadcast(subject: string, data: unknown): Promise<void>;
  subscribe<T = unknown>(subject: string, handler: (data: T, subject: string) => void | Promise<void>): Promise<Subscription>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
