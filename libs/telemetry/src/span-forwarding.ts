import { ROOT_CONTEXT, trace, type Attributes, type Context, type HrTime, type SpanContext, type SpanKind, type SpanStatus } from '@opentelemetry/api';
// Types only: the SDK is loaded when tracing is on (see tracing.ts).
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { markTracingActive, tracingSink } from './tracing.js';

/**
 * Spans of worker threads, exported by the main thread's SDK: a worker thread has
 * no tracer provider of its own, and the exporter (OTLP connection, batching, the
 * tests' in-memory one) lives on the main thread. A worker records its spans with
 * a provider whose only processor posts each finished span, as plain data, to the
 * main thread; the main thread hands them to its own span processor, under its
 * resource, so they leave with the process's other spans.
 */

/** A span context as plain data (trace state is dropped: Sightline sets none). */
export type SpanContextRecord = [traceId: string, spanId: string, traceFlags: number];

/** A finished span as plain data, to cross threads by structured clone. */
export interface SpanRecord {
  name: string;
  kind: SpanKind;
  context: SpanContextRecord;
  parent?: SpanContextRecord;
  start: HrTime;
  end: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  events: { name: string; time: HrTime; attributes?: Attributes; droppedAttributesCount?: number }[];
  links: { context: SpanContextRecord; attributes?: Attributes; droppedAttributesCount?: number }[];
  scope: { name: string; version?: string; schemaUrl?: string };
  dropped: [attributes: number, events: number, links: number];
}

export function spanContextRecord(spanContext: SpanContext): SpanContextRecord {
  return [spanContext.traceId, spanContext.spanId, spanContext.traceFlags];
}

export function spanContextOf([traceId, spanId, traceFlags]: SpanContextRecord): SpanContext {
  return { traceId, spanId, traceFlags, isRemote: true };
}

/** The span of the active context as plain data, to parent or link work done on another thread (undefined: none, or tracing off). */
export function activeSpanContextRecord(): SpanContextRecord | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? spanContextRecord(span.spanContext()) : undefined;
}

/** A context whose parent is a span of another thread (its record). */
export function contextUnder(parent: SpanContextRecord): Context {
  return trace.setSpanContext(ROOT_CONTEXT, spanContextOf(parent));
}

export function spanRecordOf(span: ReadableSpan): SpanRecord {
  const scope = span.instrumentationScope;
  return {
    name: span.name,
    kind: span.kind,
    context: spanContextRecord(span.spanContext()),
    ...(span.parentSpanContext ? { parent: spanContextRecord(span.parentSpanContext) } : {}),
    start: span.startTime,
    end: span.endTime,
    duration: span.duration,
    status: { ...span.status },
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, time: e.time, attributes: e.attributes, droppedAttributesCount: e.droppedAttributesCount })),
    links: span.links.map((l) => ({ context: spanContextRecord(l.context), attributes: l.attributes, droppedAttributesCount: l.droppedAttributesCount })),
    scope: { name: scope.name, version: scope.version, schemaUrl: scope.schemaUrl },
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  };
}

/** Posts finished spans to the main thread, those of one event-loop turn in one message. */
class ForwardingSpanProcessor implements SpanProcessor {
  private waiting: SpanRecord[] = [];

  constructor(private readonly post: (spans: SpanRecord[]) => void) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    // as the SDK's own processors: an unsampled span is not exported
    if ((span.spanContext().traceFlags & 1) === 0) return;
    if (this.waiting.length === 0) setImmediate(() => this.flush());
    this.waiting.push(spanRecordOf(span));
  }

  async forceFlush(): Promise<void> {
    this.flush();
  }

  async shutdown(): Promise<void> {
    this.flush();
  }

  private flush(): void {
    if (this.waiting.length === 0) return;
    const spans = this.waiting;
    this.waiting = [];
    this.post(spans);
  }
}

/**
 * In a worker thread whose main thread traces: records spans (the same
 * `@opentelemetry/api` calls as anywhere) and posts them to the main thread,
 * which passes them to `exportForwardedSpans`. `shutdown` posts what is left.
 */
export async function startSpanForwarding(post: (spans: SpanRecord[]) => void): Promise<{ shutdown(): Promise<void> }> {
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const provider = new NodeTracerProvider({ spanProcessors: [new ForwardingSpanProcessor(post)] });
  // the AsyncLocalStorage context manager: a span stays active across the awaits under it
  provider.register();
  const unmark = markTracingActive();
  return {
    shutdown: async () => {
      unmark();
      await provider.shutdown();
    },
  };
}

/** On the main thread: spans a worker recorded, handed to this process's span processor under its resource. Nothing when tracing is off. */
export function exportForwardedSpans(records: readonly SpanRecord[]): void {
  const sink = tracingSink();
  if (!sink) return;
  for (const record of records) sink.processor.onEnd(readableSpanOf(record, sink.resource));
}

function readableSpanOf(record: SpanRecord, resource: ReadableSpan['resource']): ReadableSpan {
  const spanContext = spanContextOf(record.context);
  spanContext.isRemote = false;
  return {
    name: record.name,
    kind: record.kind,
    spanContext: () => spanContext,
    ...(record.parent ? { parentSpanContext: spanContextOf(record.parent) } : {}),
    startTime: record.start,
    endTime: record.end,
    duration: record.duration,
    ended: true,
    status: record.status,
    attributes: record.attributes,
    events: record.events,
    links: record.links.map((l) => ({ ...l, context: spanContextOf(l.context) })),
    resource,
    instrumentationScope: record.scope,
    droppedAttributesCount: record.dropped[0],
    droppedEventsCount: record.dropped[1],
    droppedLinksCount: record.dropped[2],
  };
}
