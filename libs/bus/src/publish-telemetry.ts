import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { busPublishDuration, traceHeadersOf, tracingActive, type TraceHeaders } from '@sightline/telemetry';

const tracer = trace.getTracer('@sightline/bus');

type Adapter = 'nats' | 'local';
type Outcome = 'ok' | 'error';

/** `events.collected.3` → `events.collected.*`: one metric series per subject family, not per shard. */
export function subjectFamily(subject: string): string {
  return subject.replace(/\.\d+(?=\.|$)/g, '.*');
}

/**
 * Every collected event is a publish, so the per-publish bookkeeping is looked up,
 * not recomputed: the subject's family and the histogram child of each label set
 * (prom-client would otherwise hash the label object on every observation).
 * Both maps are bounded by the subject catalogue (families, not shards).
 */
const families = new Map<string, string>();
const MAX_CACHED_SUBJECTS = 4096;
const timers = new Map<string, { observe(seconds: number): void }>();

function familyOf(subject: string): string {
  let family = families.get(subject);
  if (family === undefined) {
    family = subjectFamily(subject);
    if (families.size >= MAX_CACHED_SUBJECTS) families.clear();
    families.set(subject, family);
  }
  return family;
}

function timerOf(adapter: Adapter, family: string, outcome: Outcome): { observe(seconds: number): void } {
  const key = `${adapter}\n${family}\n${outcome}`;
  let timer = timers.get(key);
  if (!timer) {
    timer = busPublishDuration.labels(adapter, family, outcome);
    timers.set(key, timer);
  }
  return timer;
}

/**
 * Wraps a durable publish in a PRODUCER span and times it. `publish` receives the
 * trace headers to attach to the message (undefined when tracing is off), taken
 * inside the producer span so the consumer's span becomes its child.
 */
export async function publishWithTelemetry(adapter: Adapter, subject: string, publish: (headers: TraceHeaders | undefined) => Promise<unknown>): Promise<void> {
  const family = familyOf(subject);
  const started = performance.now();
  // tracing off: no span built nor headers injected (every collected event is a publish)
  const span = tracingActive()
    ? tracer.startSpan(`publish ${family}`, {
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.system': adapter === 'nats' ? 'nats' : 'sightline-local', 'messaging.destination.name': subject, 'messaging.operation.type': 'publish' },
      })
    : undefined;
  const headers = span && traceHeadersOf(trace.setSpan(context.active(), span));
  let outcome: Outcome = 'ok';
  try {
    await publish(headers);
  } catch (error) {
    outcome = 'error';
    span?.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span?.end();
    timerOf(adapter, family, outcome).observe((performance.now() - started) / 1000);
  }
}
