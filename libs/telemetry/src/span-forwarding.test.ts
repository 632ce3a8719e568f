import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { exportForwardedSpans, spanRecordOf } from './span-forwarding.js';
import { startTracing, tracingSink, type Tracing } from './tracing.js';

// A worker thread's span crosses to the main thread as a structured clone of its
// record; the main thread's exporter must get the same span as if it had been
// recorded there. (The worker side, end to end: apps/ingest's pipeline-threads test.)
describe('span forwarding between threads', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;

  beforeAll(async () => {
    tracing = await startTracing({ exporter: 'none', serviceName: 'forwarding-test', spanExporter: exporter });
  });

  afterAll(async () => {
    await tracing?.shutdown();
  });

  /** The exporter gets a span once the resource's detected attributes are in (asynchronous): waits for `count` spans. */
  async function exported(count: number) {
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(count);
    return exporter.getFinishedSpans();
  }

  it('a span recorded elsewhere, cloned as a worker would post it, is exported whole under this process’s resource', async () => {
    const tracer = trace.getTracer('@sightline/forwarding-test', '1.2.3');
    const linked = tracer.startSpan('consume');
    linked.end();
    tracer.startActiveSpan('parent', (parent) => {
      const span = tracer.startSpan('batch write', {
        kind: SpanKind.INTERNAL,
        attributes: { 'sightline.batch.events': 12, 'sightline.batch.stage': 'events', tags: ['a', 'b'] },
        links: [{ context: linked.spanContext(), attributes: { why: 'stored here' } }],
      });
      span.addEvent('retry', { attempt: 2 });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'insert failed' });
      span.end();
      parent.end();
    });
    const original = (await exported(3)).find((s) => s.name === 'batch write')!;
    exporter.reset();

    exportForwardedSpans([structuredClone(spanRecordOf(original))]);

    const [copy] = await exported(1);
    expect(copy).toBeDefined();
    expect(copy!.spanContext()).toEqual({ ...original.spanContext(), isRemote: false });
    expect(copy!.parentSpanContext?.spanId).toBe(original.parentSpanContext!.spanId);
    expect(copy!.parentSpanContext?.traceId).toBe(original.parentSpanContext!.traceId);
    for (const field of [
      'name',
      'kind',
      'startTime',
      'endTime',
      'duration',
      'status',
      'attributes',
      'events',
      'droppedAttributesCount',
      'droppedEventsCount',
      'droppedLinksCount',
      'ended',
    ] as const) {
      expect(copy![field], field).toEqual(original[field]);
    }
    const { traceId, spanId, traceFlags } = linked.spanContext();
    expect(copy!.links).toEqual([{ context: { traceId, spanId, traceFlags, isRemote: true }, attributes: { why: 'stored here' } }]);
    expect(copy!.instrumentationScope).toEqual({ name: '@sightline/forwarding-test', version: '1.2.3', schemaUrl: undefined });
    expect(copy!.resource).toBe(original.resource);
    expect(copy!.resource.attributes['service.name']).toBe('forwarding-test');
  });

  it('an unsampled span is not exported (as the SDK’s own processors do); with tracing stopped there is nowhere to export to', async () => {
    exporter.reset();
    const span = trace.getTracer('@sightline/forwarding-test').startSpan('sampled');
    span.end();
    const [sampled] = await exported(1);
    const record = spanRecordOf(sampled!);
    exporter.reset();
    exportForwardedSpans([{ ...record, context: [record.context[0], record.context[1], 0] }]);
    // the sampled one after it arrives alone
    exportForwardedSpans([record]);
    expect((await exported(1)).map((s) => s.spanContext().traceFlags)).toEqual([1]);

    await tracing.shutdown();
    expect(tracingSink()).toBeUndefined();
    expect(() => exportForwardedSpans([record])).not.toThrow();
  });
});
