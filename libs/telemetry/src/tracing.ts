// Types only: the SDK and exporters (~30 MB once loaded) are imported when tracing is on.
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

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

let active = 0;

/**
 * Whether an SDK started here is recording spans. Hot paths (every collected event)
 * ask this before building span names and attributes that a no-op tracer would drop.
 */
export function tracingActive(): boolean {
  return active > 0;
}

/**
 * Starts the OpenTelemetry SDK when an exporter is configured. Spans are created by
 * Sightline's own code (gateway request, gRPC client/server, Db and EventStore
 * calls) through @opentelemetry/api, so one request is one trace end to end. With
 * `none` nothing is started or even loaded and the API stays a no-op: tracing costs
 * nothing when off, in time or memory.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  if (config.exporter === 'none' && !config.spanExporter) return { shutdown: async () => {} };
  const { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  let spanProcessor: SpanProcessor;
  if (config.spanExporter) {
    spanProcessor = new SimpleSpanProcessor(config.spanExporter);
  } else if (config.exporter === 'console') {
    spanProcessor = new SimpleSpanProcessor(new ConsoleSpanExporter());
  } else {
    const base = (config.otlpEndpoint ?? 'http://localhost:4318').replace(/\/+$/, '');
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }));
  }
  const sdk = new NodeSDK({ serviceName: config.serviceName, spanProcessors: [spanProcessor], instrumentations: [] });
  sdk.start();
  active += 1;
  let stopped = false;
  return {
    shutdown: () => {
      if (!stopped) active -= 1;
      stopped = true;
      return sdk.shutdown();
    },
  };
}
