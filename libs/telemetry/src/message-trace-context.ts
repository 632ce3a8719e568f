import { SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Context } from '@opentelemetry/api';

/**
 * W3C trace context (traceparent/tracestate) carried with a bus message as plain
 * string headers: NATS message headers on NatsBus, a field of the journal record on
 * LocalBus. The publish span is the parent of the consumer's span across the hop.
 */
export type TraceHeaders = Readonly<Record<string, string>>;

const tracer = trace.getTracer('@sightline/telemetry');

/** The active context as headers; undefined when no trace is being recorded (tracing off: nothing added to messages). */
export function traceHeadersOf(from: Context = context.active()): TraceHeaders | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

export function contextFromTraceHeaders(headers: TraceHeaders | undefined): Context {
  return headers ? propagation.extract(context.active(), headers) : context.active();
}

/**
 * Runs a message handler inside a CONSUMER span whose parent is the publisher's
 * context, so the work it does (and any span below it) joins the publisher's trace.
 * With tracing off (no span recorded, no context carried) the handler just runs:
 * no context switch and no wrapper promise per message (every collected event
 * passes here, so it showed in ingest's heap profile).
 */
export function inConsumerSpan<T>(name: string, headers: TraceHeaders | undefined, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  const parent = contextFromTraceHeaders(headers);
  const span = tracer.startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent);
  if (!span.isRecording() && headers === undefined) return run();
  return context.with(trace.setSpan(parent, span), async () => {
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
