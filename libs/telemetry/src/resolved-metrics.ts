import type { Metric, Registry, RegistryContentType } from 'prom-client';

/**
 * A counter and a histogram for the metrics every collected event updates (the
 * gateway's request count and latency, the bus's publish latency), whose series are
 * resolved once and then updated with plain additions.
 *
 * Why not prom-client's own: its labelled children check and hash their label object
 * on every `inc`/`observe`, a few percent of a collected event's CPU in the gateway's
 * profile. A series
 * here is an object kept by the caller; an update is an addition and a bucket search.
 *
 * They live in prom-client's registry beside its metrics: the registry renders what
 * `get()` returns, in the shape prom-client's Counter and Histogram return, so the
 * exposition is the same text (resolved-metrics.test.ts compares both, series for
 * series, in both exposition formats).
 */

type LabelValues = Record<string, string>;

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

interface ResolvedMetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry<RegistryContentType>[];
}

/** Label sets are bounded by the callers (route patterns, subject families), but a bug must not grow a map without end. */
const MAX_SERIES = 10_000;

abstract class ResolvedMetric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly L[];
  private readonly series = new Map<string, { labels: LabelValues; series: S }>();

  protected constructor(config: ResolvedMetricConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    // the registry only reads name, get() and reset(): the shape of its own metrics
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values, in `labelNames` order: look it up once, keep it, update it per event. */
  labels(...values: string[]): S {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} has labels ${this.labelNames.join(', ')}; got ${values.length} values`);
    // JSON of the values: unambiguous whatever they hold (a joined string lets ['a\0', 'b'] and ['a', '\0b'] meet); looked up once per series, not per update
    const key = JSON.stringify(values);
    const found = this.series.get(key);
    if (found) return found.series;
    if (this.series.size >= MAX_SERIES) throw new Error(`${this.name} has ${MAX_SERIES} series; a label is not bounded`);
    const labels: LabelValues = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
    const series = this.newSeries();
    this.series.set(key, { labels, series });
    return series;
  }

  protected abstract newSeries(): S;
  protected abstract valuesOf(labels: LabelValues, series: S): MetricValue[];

  async get(): Promise<{ name: string; help: string; type: 'counter' | 'histogram'; aggregator: 'sum'; values: MetricValue[] }> {
    const values: MetricValue[] = [];
    for (const { labels, series } of this.series.values()) values.push(...this.valuesOf(labels, series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's `reset()`, but in place: the series callers keep stay the ones rendered, from zero. */
  reset(): void {
    for (const { series } of this.series.values()) this.zero(series);
  }

  protected abstract zero(series: S): void;
}

export class CounterSeries {
  value = 0;

  inc(by = 1): void {
    this.value += by;
  }
}

export class ResolvedCounter<L extends string> extends ResolvedMetric<L, CounterSeries> {
  readonly type = 'counter';

  constructor(config: ResolvedMetricConfig<L>) {
    super(config);
  }

  protected newSeries(): CounterSeries {
    return new CounterSeries();
  }

  protected valuesOf(labels: LabelValues, series: CounterSeries): MetricValue[] {
    return [{ value: series.value, labels: { ...labels } }];
  }

  protected zero(series: CounterSeries): void {
    series.value = 0;
  }
}

export class HistogramSeries {
  sum = 0;
  count = 0;
  /** per bucket, not cumulative: an observation adds to one (the first bound ≥ it), none past the last bound */
  readonly counts: Float64Array;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    // a NaN or infinite latency is a bug upstream; prom-client throws, a request must not
    if (!Number.isFinite(value)) return;
    this.sum += value;
    this.count += 1;
    const { bounds, counts } = this;
    for (let i = 0; i < bounds.length; i += 1) {
      if (value <= bounds[i]!) {
        counts[i]! += 1;
        return;
      }
    }
  }
}

export class ResolvedHistogram<L extends string> extends ResolvedMetric<L, HistogramSeries> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(config: ResolvedMetricConfig<L> & { buckets: readonly number[] }) {
    super(config);
    if (config.labelNames.includes('le' as L)) throw new Error('le is a reserved label name');
    if (config.buckets.some((bound, i) => !Number.isFinite(bound) || (i > 0 && bound <= config.buckets[i - 1]!)))
      throw new Error(`${config.name}: buckets must be finite and increasing`);
    this.bounds = [...config.buckets];
  }

  protected newSeries(): HistogramSeries {
    return new HistogramSeries(this.bounds);
  }

  protected zero(series: HistogramSeries): void {
    series.sum = 0;
    series.count = 0;
    series.counts.fill(0);
  }

  /** prom-client's order: the cumulative buckets (`le` first, then the series' labels), +Inf, _sum, _count. */
  protected valuesOf(labels: LabelValues, series: HistogramSeries): MetricValue[] {
    const bucket = `${this.name}_bucket`;
    const values: MetricValue[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += series.counts[i]!;
      values.push({ value: cumulative, labels: { le: bound, ...labels }, metricName: bucket });
    });
    values.push(
      { value: series.count, labels: { le: '+Inf', ...labels }, metricName: bucket },
      { value: series.sum, labels: { ...labels }, metricName: `${this.name}_sum` },
      { value: series.count, labels: { ...labels }, metricName: `${this.name}_count` },
    );
    return values;
  }
}
