import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { readMetricValue } from './read-metric-value.js';
import { ResolvedCounter, ResolvedHistogram } from './resolved-metrics.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
/** On a bound, between bounds, past the last one, zero: each lands where prom-client puts it. */
const LATENCIES = [0.001, 0.0005, 0.05, 0.1, 2.5, 0, 0.01, 7];
/** Values the registry must escape (quote, backslash, newline) beside plain ones. */
const LABEL_SETS: [string, string][] = [
  ['/api/event', 'POST'],
  ['/sites/:site_id', 'GET'],
  ['/a "quoted" \\ path\nline', 'PUT'],
];

/** The same metrics, once as prom-client's and once resolved, each in a registry of its own, fed the same updates. */
function twins(contentType: typeof Registry.PROMETHEUS_CONTENT_TYPE | typeof Registry.OPENMETRICS_CONTENT_TYPE) {
  const prom = new Registry<RegistryContentType>();
  const ours = new Registry<RegistryContentType>();
  prom.setContentType(contentType);
  ours.setContentType(contentType);
  const config = { name: 'test_requests_total', help: 'Requests, with a "help" \\ text.', labelNames: ['route', 'method'] as const };
  const histogramConfig = { name: 'test_request_seconds', help: 'Latency.', labelNames: ['route', 'method'] as const, buckets: BUCKETS };
  return {
    prom,
    ours,
    // prom-client's types only take Prometheus-format registries; its code takes both
    promCounter: new Counter({ ...config, registers: [prom as Registry] }),
    promHistogram: new Histogram({ ...histogramConfig, registers: [prom as Registry] }),
    counter: new ResolvedCounter({ ...config, registers: [ours] }),
    histogram: new ResolvedHistogram({ ...histogramConfig, registers: [ours] }),
  };
}

describe('resolved metrics', () => {
  for (const contentType of [Registry.PROMETHEUS_CONTENT_TYPE, Registry.OPENMETRICS_CONTENT_TYPE]) {
    it(`render the text prom-client renders for the same updates (${contentType.split(';')[0]})`, async () => {
      const { prom, ours, promCounter, promHistogram, counter, histogram } = twins(contentType);
      LABEL_SETS.forEach(([route, method], i) => {
        const count = counter.labels(route, method);
        const duration = histogram.labels(route, method);
        for (const seconds of LATENCIES.slice(i)) {
          promCounter.labels(route, method).inc();
          promHistogram.labels(route, method).observe(seconds);
          count.inc();
          duration.observe(seconds);
        }
        promCounter.labels(route, method).inc(2.5);
        count.inc(2.5);
      });
      const text = await ours.metrics();
      expect(text).toBe(await prom.metrics());
      // the figures themselves, by hand: the first series saw all 8 latencies, 4 of them ≤ 0.01
      expect(text).toContain('test_request_seconds_bucket{le="0.01",route="/api/event",method="POST"} 4');
      expect(text).toContain('test_request_seconds_bucket{le="1",route="/api/event",method="POST"} 6');
      expect(text).toContain('test_request_seconds_bucket{le="+Inf",route="/api/event",method="POST"} 8');
      expect(text).toContain(`test_request_seconds_sum{route="/api/event",method="POST"} ${LATENCIES.reduce((a, b) => a + b, 0)}`);
    });
  }

  it('keep one series per label set, whoever asks for it', async () => {
    const registry = new Registry();
    const counter = new ResolvedCounter({ name: 'test_total', help: 'h', labelNames: ['a', 'b'], registers: [registry] });
    counter.labels('x', 'y').inc();
    counter.labels('x', 'y').inc();
    // the key of a series cannot be forged by values holding a separator
    counter.labels('x\u0000y', '').inc(5);
    counter.labels('p\u0000', 'q').inc(7);
    counter.labels('p', '\u0000q').inc(11);
    expect(await readMetricValue(counter, { a: 'x', b: 'y' })).toBe(2);
    expect(await readMetricValue(counter, { a: 'x\u0000y', b: '' })).toBe(5);
    expect(await readMetricValue(counter, { a: 'p\u0000', b: 'q' })).toBe(7);
    expect(await readMetricValue(counter, { a: 'p', b: '\u0000q' })).toBe(11);
    expect(counter.labels('x', 'y')).toBe(counter.labels('x', 'y'));
  });

  it('read as prom-client metrics are read (readMetricValue: _count, _sum)', async () => {
    const histogram = new ResolvedHistogram({ name: 'test_seconds', help: 'h', labelNames: ['route'], buckets: BUCKETS, registers: [] });
    const series = histogram.labels('/x');
    series.observe(0.25);
    series.observe(0.5);
    expect(await readMetricValue(histogram, { route: '/x' }, '_count')).toBe(2);
    expect(await readMetricValue(histogram, { route: '/x' }, '_sum')).toBe(0.75);
    expect(await readMetricValue(histogram, { route: '/never' }, '_count')).toBe(0);
  });

  it('ignore a latency that is not a number, where prom-client would throw inside a request', async () => {
    const histogram = new ResolvedHistogram({ name: 'test_seconds', help: 'h', labelNames: [], buckets: BUCKETS, registers: [] });
    const series = histogram.labels();
    series.observe(Number.NaN);
    series.observe(Number.POSITIVE_INFINITY);
    series.observe(0.002);
    expect(await readMetricValue(histogram, {}, '_count')).toBe(1);
    expect(await readMetricValue(histogram, {}, '_sum')).toBe(0.002);
  });

  it('reset in place: the series callers keep count on, from zero, and are rendered', async () => {
    const registry = new Registry();
    const counter = new ResolvedCounter({ name: 'test_total', help: 'h', labelNames: ['a'], registers: [registry] });
    const histogram = new ResolvedHistogram({ name: 'test_seconds', help: 'h', labelNames: ['a'], buckets: BUCKETS, registers: [registry] });
    const count = counter.labels('x');
    const duration = histogram.labels('x');
    count.inc(3);
    duration.observe(0.05);
    registry.resetMetrics();
    expect(await readMetricValue(counter, { a: 'x' })).toBe(0);
    expect(await registry.metrics()).toContain('test_seconds_bucket{le="1",a="x"} 0');
    count.inc();
    duration.observe(0.05);
    expect(await readMetricValue(counter, { a: 'x' })).toBe(1);
    expect(await readMetricValue(histogram, { a: 'x' }, '_count')).toBe(1);
  });

  it('refuse what prom-client refuses: a wrong number of label values, `le` as a label, a name registered twice, unordered buckets', () => {
    const registry = new Registry();
    const counter = new ResolvedCounter({ name: 'test_total', help: 'h', labelNames: ['a', 'b'], registers: [registry] });
    expect(() => counter.labels('only-one')).toThrow(/has labels a, b; got 1 values/);
    expect(() => new ResolvedHistogram({ name: 'test_le', help: 'h', labelNames: ['le'], buckets: BUCKETS, registers: [] })).toThrow(/le is a reserved/);
    expect(() => new ResolvedCounter({ name: 'test_total', help: 'h', labelNames: [], registers: [registry] })).toThrow(/already been registered/);
    expect(() => new Counter({ name: 'test_total', help: 'h', registers: [registry] })).toThrow(/already been registered/);
    expect(() => new ResolvedHistogram({ name: 'test_unordered', help: 'h', labelNames: [], buckets: [1, 0.5], registers: [] })).toThrow(/increasing/);
  });

  it('stop a label that is not bounded at 10,000 series', () => {
    const counter = new ResolvedCounter({ name: 'test_total', help: 'h', labelNames: ['id'], registers: [] });
    for (let i = 0; i < 10_000; i += 1) counter.labels(String(i));
    expect(() => counter.labels('one-more')).toThrow(/10000 series; a label is not bounded/);
    // the series there are still served
    expect(() => counter.labels('9999')).not.toThrow();
  });
});
