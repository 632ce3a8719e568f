import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ResolvedCounter, ResolvedHistogram } from './resolved-metrics.js';

/**
 * The process's one Prometheus registry and the catalogue of every Sightline metric.
 * One registry per process (a single-process deployment runs every service in it,
 * so one endpoint serves them all); defined here, not in each app, so a metric is
 * registered once and the dashboard (charts/sightline/dashboards) has one list to follow.
 *
 * Labels are bounded by construction: routes are route patterns, methods are gRPC
 * method names, reasons come from a fixed list — never a raw URL, id or address.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'sightline_' });

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

// the three metrics every collected event updates: series resolved once (resolved-metrics.ts)
export const httpRequests = new ResolvedCounter({
  name: 'sightline_http_requests_total',
  help: 'HTTP requests answered by the gateway, by route pattern, method and status class.',
  labelNames: ['route', 'method', 'status_class'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new ResolvedHistogram({
  name: 'sightline_http_request_duration_seconds',
  help: 'Gateway request latency (first byte in to response sent), by route pattern and method.',
  labelNames: ['route', 'method'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const grpcServerHandled = new Counter({
  name: 'sightline_grpc_server_handled_total',
  help: 'gRPC calls a service answered, by method and status code name.',
  labelNames: ['method', 'code'] as const,
  registers: [metricsRegistry],
});

export const grpcServerDuration = new Histogram({
  name: 'sightline_grpc_server_handling_seconds',
  help: 'gRPC server handling time, by method.',
  labelNames: ['method'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const busPublishDuration = new ResolvedHistogram({
  name: 'sightline_bus_publish_duration_seconds',
  help: 'Time until a durable publish is stored, by bus adapter, subject family and outcome.',
  labelNames: ['adapter', 'subject', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

/** What one stream of an in-process bus holds unconsumed, read when /metrics is scraped. */
export interface BusStreamFigures {
  stream: string;
  messages: number;
  bytes: number;
  /** the stream's byte limit (LOCAL_BUS_MAX_STREAM_BYTES), when it has one */
  limitBytes?: number;
}

const busStreamSources = new Set<() => Iterable<BusStreamFigures>>();

/**
 * An in-process bus reports its streams here (JetStream has its own monitoring):
 * the figures are read at scrape time, nothing is counted per message. Returns the
 * function that stops reporting (the bus closed).
 */
export function reportBusStreams(source: () => Iterable<BusStreamFigures>): () => void {
  busStreamSources.add(source);
  return () => void busStreamSources.delete(source);
}

/** A gauge per stream of the in-process buses, set from their reports each time /metrics is scraped. */
function busStreamGauge(name: string, help: string, figure: (f: BusStreamFigures) => number | undefined): Gauge<'stream'> {
  return new Gauge({
    name,
    help,
    labelNames: ['stream'] as const,
    registers: [metricsRegistry],
    collect() {
      this.reset();
      for (const source of busStreamSources) {
        for (const figures of source()) {
          const value = figure(figures);
          if (value !== undefined) this.set({ stream: figures.stream }, value);
        }
      }
    },
  });
}

export const busStreamHeldMessages = busStreamGauge(
  'sightline_bus_stream_held_messages',
  'Messages a stream of the in-process bus holds unconsumed (a backlog waiting for ingest shows here).',
  (f) => f.messages,
);

export const busStreamHeldBytes = busStreamGauge(
  'sightline_bus_stream_held_bytes',
  'Payload bytes a stream of the in-process bus holds unconsumed, in memory and in its journal; what LOCAL_BUS_MAX_STREAM_BYTES bounds.',
  (f) => f.bytes,
);

export const busStreamLimitBytes = busStreamGauge(
  'sightline_bus_stream_limit_bytes',
  'Byte limit of a stream of the in-process bus (LOCAL_BUS_MAX_STREAM_BYTES); past it collection answers 503.',
  (f) => f.limitBytes,
);

export const ingestLag = new Histogram({
  name: 'sightline_ingest_lag_seconds',
  help: 'Event time to the moment its batch is stored.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
  registers: [metricsRegistry],
});

export const ingestBatchSize = new Histogram({
  name: 'sightline_ingest_batch_size',
  help: 'Rows per stored ingest batch (events + session versions + drop counters).',
  buckets: [1, 5, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000],
  registers: [metricsRegistry],
});

export const ingestDroppedEvents = new Counter({
  name: 'sightline_ingest_dropped_events_total',
  help: 'Collected events ingest refused, by reason (the reasons of dropped_events).',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

export const ingestStoredEvents = new Counter({
  name: 'sightline_ingest_stored_events_total',
  help: 'Event rows written to the events table.',
  registers: [metricsRegistry],
});

export const queryDuration = new Histogram({
  name: 'sightline_query_duration_seconds',
  help: 'Time to answer a successful statistics query, by shape.',
  labelNames: ['shape'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const queryAnswers = new Counter({
  name: 'sightline_query_answers_total',
  help: 'Report answers a gateway gave (POST /query, GET /props, the share routes), by outcome: computed by the query service, cached, or joined to an identical query already running.',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** `2xx`, `4xx`, … : the status label of request counters. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}
