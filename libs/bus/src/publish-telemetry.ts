import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { busPublishDuration, traceHeadersOf, tracingActive, type HistogramSeries, type TraceHeaders } from '@sightline/telemetry';

const tracer = trace.getTracer('@sightline/bus');

type Adapter = 'nats' | 'local';

/** `events.collected.3` → `events.collected.*`: one metric series per subject family, not per shard. */
export function subjectFamily(subject: string): string {
  return subject.replace(/\.\d+(?=\.|$)/g, '.*');
}

/**
 * Every collected event is a publish, so its bookkeeping is looked up once per
 * subject, not recomputed: the subject's family and the resolved timer series of
 * each outcome. Bounded by MAX_CACHED_SUBJECTS (cleared when full; the series stay
 * in the metric, bounded by the subject catalogue's families).
 */
interface SubjectTelemetry {
  family: string;
  ok: HistogramSeries;
  error: HistogramSeries;
}

const MAX_CACHED_SUBJECTS = 4096;
const subjectsByAdapter: Record<Adapter, Map<string, SubjectTelemetry>> = { nats: new Map(), local: new Map() };

function telemetryOf(adapter: Adapter, subject: string): SubjectTelemetry {
  const subjects = subjectsByAdapter[adapter];
  let found = subjects.get(subject);
  if (found === undefined) {
    const family = subjectFamily(subject);
    found = { family, ok: busPublishDuration.labels(adapter, family, 'ok'), error: busPublishDuration.labels(adapter, family, 'error') };
    if (subjects.size >= MAX_CACHED_SUBJECTS) subjects.clear();
    subjects.set(subject, found);
  }
  return found;
}

/**
 * Wraps a durable publish in a PRODUCER span and times it. `publish` receives the
 * trace headers to attach to the message (undefined when tracing is off), taken
 * inside the producer span so the consumer's span becomes its child.
 */
export async function publishWithTelemetry(adapter: Adapter, subject: string, publish: (headers: TraceHeaders | undefined) => Promise<unknown>): Promise<void> {
  const { family, ok, error: failed } = telemetryOf(adapter, subject);
  const started = performance.now();
  // tracing off: no span built nor headers injected (every collected event is a publish)
  const span = tracingActive()
    ? tracer.startSpan(`publish ${family}`, {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': adapter === 'nats' ? 'nats' : 'sightline-local',
          'messaging.destination.name': subject,
          'messaging.operation.type': 'publish',
        },
      })
    : undefined;
  const headers = span && traceHeadersOf(trace.setSpan(context.active(), span));
  let timer = ok;
  try {
    await publish(headers);
  } catch (error) {
    timer = failed;
    span?.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span?.end();
    timer.observe((performance.now() - started) / 1000);
  }
}
