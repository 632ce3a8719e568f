export { createLogger, REDACTED_PATHS } from './logger.js';
export type { Logger, LoggerConfig } from './logger.js';
export { startTracing } from './tracing.js';
export type { Tracing, TracingConfig } from './tracing.js';
export { injectTraceContext, extractTraceContext } from './grpc-trace-context.js';
