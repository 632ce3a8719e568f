// Types only: the SDK and exporters (~30 MB once loaded) are imported when tracing is on.
import type { ReadableSpan, Sampler, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export type TraceExporterName = 'none' | 'console' | 'otlp';

export interface TracingConfig {
  /** unset: `otlp` when an OTLP endpoint is given, else `none` (OTEL_TRACES_EXPORTER's default is otlp; without an endpoint there is nowhere to send) */
  exporter?: TraceExporterName;
  serviceName: string;
  /** OTLP/HTTP base URL, e.g. http://collector:4318 (the `/v1/traces` path is added) */
  otlpEndpoint?: string;
  /** a ready exporter (tests use an in-memory one); overrides `exporter` */
  spanExporter?: SpanExporter;
  /** a sampler (tests); unset, the SDK reads OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on) */
  sampler?: Sampler;
}

/** The exporter a configuration asks for: an explicit OTEL_TRACES_EXPORTER, else otlp when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
export function traceExporterOf(config: Pick<TracingConfig, 'exporter' | 'otlpEndpoint'>): TraceExporterName {
  return config.exporter ?? (config.otlpEndpoint ? 'otlp' : 'none');
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

/** Counts a recording provider (the SDK here, or a worker thread's forwarding one); the function given back uncounts it once. */
export function markTracingActive(): () => void {
  active += 1;
  let marked = true;
  return () => {
    if (marked) active -= 1;
    marked = false;
  };
}

/** Where spans end on this thread: the started SDK's processor and resource (span-forwarding.ts hands worker threads' spans to it). */
export interface TracingSink {
  processor: SpanProcessor;
  resource: ReadableSpan['resource'];
}

let sink: TracingSink | undefined;

export function tracingSink(): TracingSink | undefined {
  return sink;
}

/**
 * Starts the OpenTelemetry SDK when an exporter is configured. Spans are created by
 * Sightline's own code (gateway request, gRPC client/server, Db and EventStore
 * calls) through @opentelemetry/api, so one request is one trace end to end. With
 * `none` nothing is started or even loaded and the API stays a no-op: tracing costs
 * nothing when off, in time or memory.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const exporter = traceExporterOf(config);
  if (exporter === 'none' && !config.spanExporter) return { shutdown: async () => {} };
  const { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  let spanProcessor: SpanProcessor;
  if (config.spanExporter) {
    spanProcessor = new SimpleSpanProcessor(config.spanExporter);
  } else if (exporter === 'console') {
    spanProcessor = new SimpleSpanProcessor(new ConsoleSpanExporter());
  } else {
    const base = (config.otlpEndpoint ?? 'http://localhost:4318').replace(/\/+$/, '');
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }));
  }
  // the resource NodeSDK would detect by default (env, process, host, service name), made
  // here so the spans of worker threads exported through this SDK carry the same one
  const { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }))
    .merge(resourceFromAttributes({ 'service.name': config.serviceName }));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [spanProcessor],
    instrumentations: [],
    ...(config.sampler ? { sampler: config.sampler } : {}),
  });
  sdk.start();
  const ownSink: TracingSink = { processor: spanProcessor, resource };
  sink = ownSink;
  const unmark = markTracingActive();
  return {
    shutdown: () => {
      unmark();
      if (sink === ownSink) sink = undefined;
      return sdk.shutdown();
    },
  };
}
