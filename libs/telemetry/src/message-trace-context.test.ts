import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inConsumerSpan, traceHeadersOf } from './message-trace-context.js';
import { startTracing, type Tracing } from './tracing.js';

const tracer = trace.getTracer('message-trace-context-test');

// first with tracing off (no SDK registered yet in this file's process), then on
describe('inConsumerSpan, tracing off', () => {
  it('runs the handler as is: its value, its error, no span', async () => {
    expect(traceHeadersOf()).toBeUndefined();
    await expect(inConsumerSpan('consume', undefined, {}, async () => trace.getActiveSpan())).resolves.toBeUndefined();
    await expect(inConsumerSpan('consume', undefined, {}, async () => 42)).resolves.toBe(42);
    await expect(inConsumerSpan('consume', undefined, {}, async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
  });
});

describe('inConsumerSpan, tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  beforeAll(async () => {
    tracing = await startTracing({ exporter: 'none', serviceName: 'message-trace-context-test', spanExporter: exporter });
    // the SDK exports its first spans only once resource detection settled: wait for that once
    tracer.startSpan('warm-up').end();
    for (let i = 0; i < 100 && !exporter.getFinishedSpans().some((s) => s.name === 'warm-up'); i += 1) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    await tracing.shutdown();
  });

  it('makes the handler a CONSUMER span of the publisher’s trace, active while it runs, ERROR when it throws', async () => {
    const { headers, traceId, parentId } = tracer.startActiveSpan('publisher', (span) => {
      const carried = traceHeadersOf();
      span.end();
      return { headers: carried, traceId: span.spanContext().traceId, parentId: span.spanContext().spanId };
    });
    expect(headers?.traceparent).toContain(traceId);
    const active = await inConsumerSpan(
      'consume ok',
      headers,
      { 'messaging.destination.name': 'events.collected.0' },
      async () => trace.getActiveSpan()?.spanContext().spanId,
    );
    await expect(inConsumerSpan('consume failed', headers, {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    for (let i = 0; i < 100 && exporter.getFinishedSpans().filter((s) => s.name.startsWith('consume')).length < 2; i += 1)
      await new Promise((r) => setTimeout(r, 50));

    const ok = exporter.getFinishedSpans().find((s) => s.name === 'consume ok')!;
    expect(ok.kind).toBe(SpanKind.CONSUMER);
    expect(ok.spanContext().traceId).toBe(traceId);
    expect(ok.parentSpanContext?.spanId).toBe(parentId);
    expect(ok.spanContext().spanId).toBe(active);
    expect(ok.attributes['messaging.destination.name']).toBe('events.collected.0');
    expect(exporter.getFinishedSpans().find((s) => s.name === 'consume failed')?.status.code).toBe(SpanStatusCode.ERROR);
  });
});
