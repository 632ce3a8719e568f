import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api';
import type { EventRow } from '@sightline/events-schema';
import { ingestBatchSize, ingestDroppedEvents, ingestLag, ingestStoredEvents } from '@sightline/telemetry';

const tracer = trace.getTracer('@sightline/ingest');

/** OpenTelemetry's default span link limit: more would be dropped by the SDK anyway. */
export const MAX_BATCH_LINKS = 128;

/** The span of the message being handled now (the ingest consume span), to link the batch to it. */
export function currentSpanContext(): SpanContext | undefined {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * A batch has many parents (one collect trace per message), so its write is a root
 * span *linked* to each message's consume span; the inserts below become its children.
 * One span per write stage and attempt (`sightline.batch.stage`: events, sessions).
 */
export function inBatchWriteSpan<T>(links: readonly SpanContext[], attributes: Record<string, number | string>, run: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan('ingest batch write', { kind: SpanKind.INTERNAL, root: true, links: links.map((link) => ({ context: link })), attributes }, async (span) => {
    try {
      return await run();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** 'YYYY-MM-DD HH:MM:SS.mmm' (UTC, as written) → ms since the epoch. */
function eventTimeMs(timestamp: string): number {
  return Date.parse(`${timestamp.replace(' ', 'T')}Z`);
}

/** Metrics of a batch once every table of it is stored. */
export function recordStoredBatch(batch: { events: readonly EventRow[]; rows: number; drops: Iterable<{ reason: string; count: number }> }, nowMs = Date.now()): void {
  ingestBatchSize.observe(batch.rows);
  ingestStoredEvents.inc(batch.events.length);
  for (const event of batch.events) {
    const at = eventTimeMs(event.timestamp);
    if (Number.isFinite(at)) ingestLag.observe(Math.max(0, nowMs - at) / 1000);
  }
  for (const drop of batch.drops) ingestDroppedEvents.inc({ reason: drop.reason }, drop.count);
}
