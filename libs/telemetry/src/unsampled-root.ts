import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, TraceFlags, context, trace } from '@opentelemetry/api';
import { tracingActive } from './tracing.js';

/**
 * Runs background housekeeping (the gateway's per-second usage sync) under a root
 * that is not sampled: the spans it opens, here and — through the `traceparent` it
 * carries with flag 00 — in the services it calls, are neither exported nor each a
 * trace of their own, whatever the root sampler would decide. Tracing off: just runs.
 */
export function inUnsampledRoot<T>(run: () => T): T {
  if (!tracingActive()) return run();
  const root = trace.wrapSpanContext({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.NONE });
  return context.with(trace.setSpan(ROOT_CONTEXT, root), run);
}
