import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { LocalBus, type UntypedSubjects } from '@sightline/bus';
import { Counter, Histogram, Registry } from 'prom-client';
import { httpRequestDuration, httpRequests, metricsRegistry, startTracing } from '@sightline/telemetry';

/** ops/s of `run`, called `n` times in sequence. */
async function opsPerSecond(n: number, run: (i: number) => Promise<void> | void): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i += 1) await run(i);
  return Math.round(n / ((performance.now() - started) / 1000));
}

/**
 * What telemetry costs on the hot paths: a bus publish (metrics always; trace span and
 * headers only when tracing is on), one HTTP request's metric updates, and a scrape.
 */
export async function benchTelemetry(): Promise<Record<string, string | number>> {
  const figures: Record<string, string | number> = {};
  const N = 20_000;
  const bus = new LocalBus<UntypedSubjects>();
  await bus.ensureStreams([{ name: 'BENCH', subjects: ['bench.>'] }]);
  figures['LocalBus publish, tracing off (ops/s, in memory)'] = await opsPerSecond(N, (i) => bus.publish('bench.1', { i }));

  // the gateway's way (series resolved once per route, kept) beside prom-client's labelled children, the way before
  const routes = ['/api/event', '/api/v1/query', '/api/v1/sites/:id', '/healthz'];
  const resolved = routes.map((route) => ({ count: httpRequests.labels(route, 'POST', '2xx'), duration: httpRequestDuration.labels(route, 'POST') }));
  const aside = new Registry();
  const promCounter = new Counter({ name: 'bench_requests_total', help: 'bench', labelNames: ['route', 'method', 'status_class'], registers: [aside] });
  const promHistogram = new Histogram({ name: 'bench_request_seconds', help: 'bench', labelNames: ['route', 'method'], registers: [aside] });
  const children = routes.map((route) => ({ count: promCounter.labels(route, 'POST', '2xx'), duration: promHistogram.labels(route, 'POST') }));
  const updates = 2_000_000;
  const ours = await opsPerSecond(updates, (i) => {
    const series = resolved[i % routes.length]!;
    series.count.inc();
    series.duration.observe(0.003);
  });
  const theirs = await opsPerSecond(updates, (i) => {
    const series = children[i % routes.length]!;
    series.count.inc();
    series.duration.observe(0.003);
  });
  figures['HTTP metric updates per request (counter + histogram, ops/s): resolved series / prom-client labelled children'] =
    `${ours} / ${theirs} (${(ours / theirs).toFixed(1)}×)`;

  let text = '';
  const scrapeStarted = performance.now();
  for (let i = 0; i < 50; i += 1) text = await metricsRegistry.metrics();
  figures['/metrics render time (ms, mean of 50)'] = ((performance.now() - scrapeStarted) / 50).toFixed(2);
  figures['/metrics body size (bytes)'] = Buffer.byteLength(text);

  const exporter = new InMemorySpanExporter();
  const tracing = await startTracing({ exporter: 'none', serviceName: 'bench', spanExporter: exporter });
  const tracer = trace.getTracer('bench');
  figures['LocalBus publish, tracing on, inside a span (ops/s)'] = await opsPerSecond(N, (i) =>
    tracer.startActiveSpan('caller', async (span) => {
      await bus.publish('bench.1', { i });
      span.end();
      if (i % 1000 === 0) exporter.reset();
    }),
  );
  await tracing.shutdown();
  await bus.close();
  return figures;
}
