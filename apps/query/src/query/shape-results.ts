import { METRICS, type MetricName } from '../catalogue/metrics.js';
import type { GeoLabelKind } from '../catalogue/dimensions.js';
import type { GeoLabels } from '../geo-labels.js';
import type { MetricValues } from '@sightline/query-contract';

/**
 * Step 7: raw part rows → metric values per group. Merges the parts by group value,
 * derives exit_rate and conversion_rate, rounds per the metric catalogue and puts
 * the empty value (0, or null for averages) where a group has no data.
 */
export type RawRow = Record<string, unknown> & { g: string };

export function mergeParts(parts: readonly RawRow[][]): Map<string, Record<string, number | null>> {
  const merged = new Map<string, Record<string, number | null>>();
  for (const rows of parts) {
    for (const row of rows) {
      const target = merged.get(String(row.g)) ?? {};
      for (const [column, value] of Object.entries(row)) {
        if (!column.startsWith('m_')) continue;
        const number = value === null || value === undefined ? null : Number(value);
        target[column.slice(2)] = number !== null && Number.isFinite(number) ? number : null;
      }
      merged.set(String(row.g), target);
    }
  }
  return merged;
}

export function round(metric: MetricName, value: number | null | undefined): number | null {
  const spec = METRICS[metric];
  if (value === null || value === undefined) return spec.empty;
  const factor = 10 ** spec.decimals;
  return Math.round(value * factor) / factor;
}

/** The requested metrics of one group, derived ones computed from helper columns. */
export function metricValues(metrics: readonly MetricName[], raw: Record<string, number | null> | undefined, totalVisitors?: number): MetricValues {
  const values: MetricValues = {};
  for (const metric of metrics) {
    let value: number | null | undefined = raw?.[metric];
    if (metric === 'exit_rate') value = raw?.pageviews ? (100 * (raw.visits ?? 0)) / raw.pageviews : null;
    if (metric === 'conversion_rate') value = totalVisitors ? (100 * (raw?.visitors ?? 0)) / totalVisitors : 0;
    values[metric] = round(metric, value);
  }
  return values;
}

export function geoLabel(kind: GeoLabelKind, value: string, geo: GeoLabels): string {
  const name =
    kind === 'country' ? geo.countryName(value) : kind === 'region' ? geo.regionName(value) : /^\d+$/.test(value) ? geo.cityName(Number(value)) : undefined;
  return name ?? value;
}
