/** Anything the registry renders: prom-client's metrics and the resolved ones. */
interface ReadableMetric {
  get(): Promise<{ values: { value: number; labels: Partial<Record<string, string | number>> }[] }>;
}

/**
 * The current value of one series of a metric in this process: a counter's value, or
 * a histogram's `_count` / `_sum`. For tests and diagnostics that check a figure
 * without scraping text. 0 when the series was never touched.
 */
export async function readMetricValue(
  metric: ReadableMetric,
  labels: Readonly<Record<string, string>> = {},
  series: '' | '_count' | '_sum' = '',
): Promise<number> {
  const { values } = await metric.get();
  const match = values.find((v) => {
    const name = (v as { metricName?: string }).metricName;
    if (series !== '' && !name?.endsWith(series)) return false;
    if (series === '' && name !== undefined && (name.endsWith('_bucket') || name.endsWith('_count') || name.endsWith('_sum'))) return false;
    return Object.entries(labels).every(([key, value]) => v.labels[key] === value);
  });
  return match?.value ?? 0;
}
