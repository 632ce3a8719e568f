export { createLogger, REDACTED_PATHS } from './logger.js';
export type { Logger, LoggerConfig } from './logger.js';
export { startTracing, traceExporterOf, tracingActive } from './tracing.js';
export type { TraceExporterName, Tracing, TracingConfig } from './tracing.js';
export { inUnsampledRoot } from './unsampled-root.js';
export { injectTraceContext, extractTraceContext } from './grpc-trace-context.js';
export {
  metricsRegistry,
  httpRequests,
  httpRequestDuration,
  grpcServerHandled,
  grpcServerDuration,
  busPublishDuration,
  busStreamHeldMessages,
  busStreamHeldBytes,
  busStreamLimitBytes,
  reportBusStreams,
  ingestLag,
  ingestBatchSize,
  ingestDroppedEvents,
  ingestStoredEvents,
  queryDuration,
  queryAnswers,
  statusClass,
} from './metrics.js';
export type { BusStreamFigures } from './metrics.js';
export { reportBusConsumers, busConsumerPending, busConsumerAckPending, busConsumerLag } from './bus-consumer-metrics.js';
export type { BusConsumerFigures } from './bus-consumer-metrics.js';
export { startMetricsServer } from './metrics-server.js';
export type { MetricsServer, MetricsServerOptions } from './metrics-server.js';
export { traceHeadersOf, contextFromTraceHeaders, inConsumerSpan } from './message-trace-context.js';
export type { TraceHeaders } from './message-trace-context.js';
export { traceLogFields } from './log-trace-mixin.js';
export { readMetricValue } from './read-metric-value.js';
export { ResolvedCounter, ResolvedHistogram, CounterSeries, HistogramSeries } from './resolved-metrics.js';
export { activeSpanContextRecord, contextUnder, exportForwardedSpans, startSpanForwarding } from './span-forwarding.js';
export type { SpanContextRecord, SpanRecord } from './span-forwarding.js';
