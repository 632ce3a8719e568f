import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface TracingConfig {
  exporter: 'none' | 'console' | 'otlp';
  serviceName: string;
  /** OTLP/HTTP base URL, e.g. http://collector:4318 (the `/v1/traces` path is added) */
  otlpEndpoint?: string;
  /** a ready exporter (tests use an in-memory one); overrides `exporter` */
  spanExporter?: SpanExporter;
}

export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK when an exporter is configured. Spans are created by
 * Sightline's own code (gateway request, gRPC client/server, Db and EventStore
 * calls) through @opentelemetry/api, so one request is one trace end to end. With
 * `none` nothing is started and the API stays a no-op: tracing costs nothing when off.
 */
export function startTracing(config: TracingConfig): Tracing {
  if (config.exporter === 'none' && !config.spanExporter) return { shutdown: async () => {} };
  let spanProcessor;
  if (config.spanExporter) {
    spanProcessor = new SimpleSpanProcessor(config.spanExporter);
  } else if (config.exporter === 'console') {
    spanProcessor = new SimpleSpanProcessor(new ConsoleSpanExporter());
  } else {
    const base = (config.otlpEndpoint ?? 'http://localhost:4318').replace(/\/+$/, '');
    spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }));
  }
  const sdk = new NodeSDK({ serviceName: config.serviceName, spanProcessors: [spanProcessor], instrumentations: [] });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
