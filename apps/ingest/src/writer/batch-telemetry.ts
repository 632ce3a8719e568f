import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api';
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
  return tracer.startActiveSpan(
    'ingest batch write',
    { kind: SpanKind.INTERNAL, root: true, links: links.map((link) => ({ context: link })), attributes },
    async (span) => {
      try {
        return await run();
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** What a stored batch adds to the metrics: plain data, so a pipeline worker can hand it to the main thread, whose registry is served. */
export interface StoredBatchFigures {
  rows: number;
  events: number;
  /** now − event time of each event with a readable time (s) */
  lagSeconds: number[];
  drops: [reason: string, count: number][];
}

/** `eventTimes`: each stored event's time, ms since the epoch (NaN when unreadable: no lag observed). */
export function storedBatchFigures(
  batch: { eventTimes: readonly number[]; rows: number; drops: Iterable<{ reason: string; count: number }> },
  nowMs = Date.now(),
): StoredBatchFigures {
  const lagSeconds: number[] = [];
  for (const at of batch.eventTimes) if (Number.isFinite(at)) lagSeconds.push(Math.max(0, nowMs - at) / 1000);
  return { rows: batch.rows, events: batch.eventTimes.length, lagSeconds, drops: [...batch.drops].map((d) => [d.reason, d.count]) };
}

/** Metrics of a batch once every table of it is stored (on the main thread, whichever thread stored it). */
export function recordStoredBatchFigures(figures: StoredBatchFigures): void {
  ingestBatchSize.observe(figures.rows);
  ingestStoredEvents.inc(figures.events);
  for (const lag of figures.lagSeconds) ingestLag.observe(lag);
  for (const [reason, count] of figures.drops) ingestDroppedEvents.inc({ reason }, count);
}
