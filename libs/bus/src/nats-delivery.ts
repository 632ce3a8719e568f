import { PubHeaders, type JsMsg } from '@nats-io/jetstream';
import type { DeliveredMessage } from './bus.js';
import type { BusLogger } from './bus-logger.js';
import { traceHeadersFrom } from './nats-trace-headers.js';

/** What a delivery needs of its consumer. */
export interface NatsDeliveryContext {
  stream: string;
  durable: string;
  ackWaitMs: number;
  maxDeliver: number;
  logger: BusLogger;
}

/**
 * One JetStream delivery as the handler sees it: settled once (ack, nak or term),
 * whichever comes first. A class rather than closures made per message: every
 * collected event passes here, and per-message functions cost allocation (and,
 * under tsx's keepNames, a property definition each).
 */
export class NatsDelivery<T> implements DeliveredMessage<T> {
  readonly subject: string;
  readonly deliveryCount: number;
  readonly streamSeq: number;
  msgId?: string;
  traceHeaders?: Readonly<Record<string, string>>;
  #settled = false;
  readonly #startedAt = Date.now();

  constructor(
    readonly data: T,
    private readonly m: JsMsg,
    private readonly context: NatsDeliveryContext,
    deliveryCount: number,
  ) {
    this.subject = m.subject;
    this.deliveryCount = deliveryCount;
    this.streamSeq = m.seq;
    const msgId = m.headers?.get(PubHeaders.MsgIdHdr);
    if (msgId) this.msgId = msgId;
    const traceHeaders = traceHeadersFrom(m.headers);
    if (traceHeaders) this.traceHeaders = traceHeaders;
  }

  /** read only when asked: most consumers never do */
  get storedAt(): number {
    return Math.floor(this.m.info.timestampNanos / 1e6);
  }

  get isLastDelivery(): boolean {
    return this.context.maxDeliver > 0 && this.deliveryCount >= this.context.maxDeliver;
  }

  async ack(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    // Acks are fire-and-forget: a lost ack only means a redelivery (at least once).
    settleQuietly(this.m, 'ack');
  }

  async nak(delayMs?: number): Promise<void> {
    this.settleWithNak(delayMs, 'handler nak');
  }

  /** Redelivery after `delayMs`, or the end of the message on its last delivery. */
  settleWithNak(delayMs: number | undefined, reason: string): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.isLastDelivery) this.giveUp(reason);
    // After the ack wait the server has redelivered: a nak from this delivery is stale.
    else if (Date.now() - this.#startedAt < this.context.ackWaitMs) settleQuietly(this.m, 'nak', delayMs);
  }

  /** The last delivery's ack wait ran out: the server says nothing then, so end it here. */
  expire(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.giveUp('ack wait expired');
  }

  private giveUp(reason: string): void {
    giveUpMessage(this.m, this.context, this.deliveryCount, reason);
  }
}

/** Ends a message for good (term, not nak: the consumer is done with it) and says why. */
export function giveUpMessage(m: JsMsg, context: NatsDeliveryContext, deliveries: number, reason: string): void {
  settleQuietly(m, 'term');
  context.logger('warn', 'message dropped after its last delivery', {
    stream: context.stream,
    durable: context.durable,
    subject: m.subject,
    seq: m.seq,
    deliveries,
    reason,
  });
}

/**
 * Acks, naks and terms are fire-and-forget publishes; on a closed connection they
 * throw. Nothing is lost by ignoring that: the server redelivers whatever was not
 * acked. (No closure per call: every delivered message settles through here.)
 */
export function settleQuietly(m: JsMsg, how: 'ack' | 'nak' | 'term', delayMs?: number): void {
  try {
    if (how === 'ack') m.ack();
    else if (how === 'nak') m.nak(delayMs);
    else m.term();
  } catch {
    // connection closed or closing
  }
}
