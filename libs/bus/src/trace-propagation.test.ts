import { jetstreamManager } from '@nats-io/jetstream';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { busPublishDuration, readMetricValue, startTracing, type Tracing } from '@sightline/telemetry';
import { backendGate, makeTempDir, uniqueName } from '@sightline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus, DeliveredMessage, UntypedSubjects } from './bus.js';
import { LocalBus } from './local-bus.js';
import { connectNatsBus, type NatsBus } from './nats-bus.js';
import { subjectFamily } from './publish-telemetry.js';
import { waitFor } from './testing/index.js';

// W3C trace context crosses the bus: the publish is a PRODUCER span child of the
// caller's span, and the consumer receives that span's traceparent (NATS headers on
// NatsBus, the journal record on LocalBus — so it survives a restart too).
const gate = await backendGate('nats');
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
const tracer = trace.getTracer('bus-trace-test');

beforeAll(async () => {
  tracing = await startTracing({ exporter: 'none', serviceName: 'bus-trace-test', spanExporter: exporter });
  // the SDK exports its first spans only once resource detection settled: wait for that once
  tracer.startSpan('warm-up').end();
  await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'warm-up'), 5_000);
});
afterAll(async () => {
  await tracing.shutdown();
});

/** Publishes inside a parent span; returns that span's trace id and the producer span's id. */
async function publishTraced(bus: Bus<UntypedSubjects>, subject: string, data: unknown): Promise<{ traceId: string; producerSpanId: string }> {
  const traceId = await tracer.startActiveSpan('caller', async (span) => {
    await bus.publish(subject, data);
    span.end();
    return span.spanContext().traceId;
  });
  const producer = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.PRODUCER && s.spanContext().traceId === traceId);
  expect(producer?.name).toBe(`publish ${subjectFamily(subject)}`);
  expect(producer?.parentSpanContext?.spanId).toBe(
    exporter
      .getFinishedSpans()
      .find((s) => s.name === 'caller' && s.spanContext().traceId === traceId)
      ?.spanContext().spanId,
  );
  return { traceId, producerSpanId: producer!.spanContext().spanId };
}

async function firstDelivery(bus: Bus<UntypedSubjects>, stream: string, durable: string): Promise<DeliveredMessage> {
  const got: DeliveredMessage[] = [];
  const subscription = await bus.consume({ stream, durable, handler: async (m) => void got.push(m) });
  await waitFor(() => got.length >= 1, 10_000);
  await subscription.stop();
  return got[0]!;
}

describe('subjectFamily', () => {
  it('collapses shard numbers so metric series stay per family', () => {
    expect(subjectFamily('events.collected.3')).toBe('events.collected.*');
    expect(subjectFamily('events.collected.12')).toBe('events.collected.*');
    expect(subjectFamily('site.deleted')).toBe('site.deleted');
    expect(subjectFamily('a.7.b')).toBe('a.*.b');
  });
});

describe('trace context over LocalBus', () => {
  it('hands the producer span’s traceparent to the consumer through the journal (survives a restart)', async () => {
    const dir = await makeTempDir('sightline-bus-trace-');
    try {
      const before = await readMetricValue(busPublishDuration, { adapter: 'local', subject: 'tr.*', outcome: 'ok' }, '_count');
      const first = new LocalBus<UntypedSubjects>({ journalDir: dir.path });
      await first.ensureStreams([{ name: 'TRACE', subjects: ['tr.>'] }]);
      const { traceId, producerSpanId } = await publishTraced(first, 'tr.5', { n: 1 });
      // closed before anyone consumed: the delivery below can only come from the journal
      await first.close();

      const reopened = new LocalBus<UntypedSubjects>({ journalDir: dir.path });
      await reopened.ensureStreams([{ name: 'TRACE', subjects: ['tr.>'] }]);
      const replayed = await firstDelivery(reopened, 'TRACE', 'reader');
      expect(replayed.data).toEqual({ n: 1 });
      expect(replayed.traceHeaders?.traceparent).toBe(`00-${traceId}-${producerSpanId}-01`);
      await reopened.close();

      const after = await readMetricValue(busPublishDuration, { adapter: 'local', subject: 'tr.*', outcome: 'ok' }, '_count');
      expect(after).toBe(before + 1);
    } finally {
      await dir.remove();
    }
  });
});

describe.skipIf(!gate.available)('trace context over NatsBus', () => {
  let bus: NatsBus<UntypedSubjects>;
  const stream = uniqueName('TRACE');
  const prefix = uniqueName('tr');

  beforeAll(async () => {
    bus = await connectNatsBus<UntypedSubjects>(gate.url, { name: 'bus-trace-test' });
    await bus.ensureStreams([{ name: stream, subjects: [`${prefix}.>`] }]);
  });
  afterAll(async () => {
    if (!bus) return;
    const jsm = await jetstreamManager(bus.connection);
    await jsm.streams.delete(stream).catch(() => false);
    await bus.close();
  });

  it('carries traceparent in the NATS message headers, next to the dedupe id', async () => {
    const { traceId, producerSpanId } = await tracer.startActiveSpan('caller', async (span) => {
      await bus.publish(`${prefix}.1`, { n: 2 }, { msgId: uniqueName('m') });
      span.end();
      const producer = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.PRODUCER && s.spanContext().traceId === span.spanContext().traceId)!;
      return { traceId: span.spanContext().traceId, producerSpanId: producer.spanContext().spanId };
    });
    const delivered = await firstDelivery(bus, stream, 'reader');
    expect(delivered.msgId).toBeDefined();
    expect(delivered.traceHeaders?.traceparent).toBe(`00-${traceId}-${producerSpanId}-01`);
  });
});
