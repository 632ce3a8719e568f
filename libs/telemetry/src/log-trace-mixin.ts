import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * Pino mixin: every log line written while a span is active carries its trace_id
 * and span_id, so a log line leads to its trace and back. Nothing when tracing is off.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
