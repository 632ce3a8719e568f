import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { busPublishDuration, traceHeadersOf, type TraceHeaders } from '@sightline/telemetry';

const tracer = trace.getTracer('@sightline/bus');

/** `events.collected.3` → `events.collected.*`: one metric series per subject family, not per shard. */
export function subjectFamily(subject: string): string {
  return subject.replace(/\.\d+(?=\.|$)/g, '.*');
}

/**
 * Wraps a durable publish in a PRODUCER span and times it. `publish` receives the
 * trace headers to attach to the message (undefined when tracing is off), taken
 * inside the producer span so the consumer's span becomes its child.
 */
export async function publishWithTelemetry(adapter: 'nats' | 'local', subject: string, publish: (headers: TraceHeaders | undefined) => Promise<void>): Promise<void> {
  const family = subjectFamily(subject);
  const started = performance.now();
  const span = tracer.startSpan(`publish ${family}`, {
    kind: SpanKind.PRODUCER,
    attributes: { 'messaging.system': adapter === 'nats' ? 'nats' : 'sightline-local', 'messaging.destination.name': subject, 'messaging.operation.type': 'publish' },
  });
  const headers = traceHeadersOf(trace.setSpan(context.active(), span));
  let outcome = 'ok';
  try {
    await publish(headers);
  } catch (error) {
    outcome = 'error';
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
    busPublishDuration.observe({ adapter, subject: family, outcome }, (performance.now() - started) / 1000);
  }
}
