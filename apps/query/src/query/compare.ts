import type { Comparison, MetricValues } from '@sightline/query-contract';
import { METRICS, type MetricName } from '../catalogue/metrics.js';

export function changeOf(metric: MetricName, current: number | null | undefined, previous: number | null | undefined): number | null {
  if (current === null || current === undefined || previous === null || previous === undefined) return null;
  if (METRICS[metric].change === 'difference') {
    const factor = 10 ** METRICS[metric].decimals;
    return Math.round((current - previous) * factor) / factor;
  }
  if (previous === 0) return null;
  return Math.round(((current - previous) / previous) * 100);
}

/**
 * A compare block: the previous values and the change of each metric: percent
 * change (integer) for counts and durations, absolute difference for rates
 * (bounce_rate, exit_rate, conversion_rate); null where undefined (a side without
 * data, or a percent change from 0).
 */
export function compareBlock(metrics: readonly MetricName[], current: MetricValues, previous: MetricValues): Comparison {
  const change: MetricValues = {};
  const before: MetricValues = {};
  for (const metric of metrics) {
    before[metric] = previous[metric] ?? null;
    change[metric] = changeOf(metric, current[metric], previous[metric]);
  }
  return { metrics: before, change };
}
