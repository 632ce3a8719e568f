/**
 * The metric catalogue: every metric's name, where it is computed, how its value is
 * rounded, what it reads as when there is no data, and how a comparison is
 * expressed. Adding a metric = one entry here + its SQL in `SESSION_METRIC_SQL` or
 * `EVENT_METRIC_SQL` (which table computes it is decided by plan.ts from `source`).
 *
 * The SQL is evaluated over one group of the inner per-session rows compiled in
 * compile-sql.ts (sessions: `visitor_id, pageviews, is_bounce, duration,
 * engagement_ms, bounce_scope`; events: `visitor_id, pv, ev, eng, scroll, has_scroll`).
 */
export const METRIC_NAMES = [
  'visitors',
  'pageviews',
  'visits',
  'visit_duration',
  'bounce_rate',
  'views_per_visit',
  'engagement_time',
  'events',
  'conversion_rate',
  'time_on_page',
  'scroll_depth',
  'exit_rate',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** Metrics every shape computes (spec: "all shapes"). */
export const ALL_SHAPE_METRICS: readonly MetricName[] = [
  'visitors',
  'pageviews',
  'visits',
  'visit_duration',
  'bounce_rate',
  'views_per_visit',
  'engagement_time',
];

export interface MetricSpec {
  /** integer, 1 or 2 decimals */
  decimals: 0 | 1 | 2;
  /** value without any data: 0, or null for averages */
  empty: 0 | null;
  /** percent change (counts, durations) or absolute difference (rates) in compare blocks */
  change: 'percent' | 'difference';
}

export const METRICS: Record<MetricName, MetricSpec> = {
  visitors: { decimals: 0, empty: 0, change: 'percent' },
  pageviews: { decimals: 0, empty: 0, change: 'percent' },
  visits: { decimals: 0, empty: 0, change: 'percent' },
  visit_duration: { decimals: 0, empty: null, change: 'percent' },
  bounce_rate: { decimals: 0, empty: 0, change: 'difference' },
  views_per_visit: { decimals: 2, empty: 0, change: 'percent' },
  engagement_time: { decimals: 0, empty: null, change: 'percent' },
  events: { decimals: 0, empty: 0, change: 'percent' },
  conversion_rate: { decimals: 2, empty: 0, change: 'difference' },
  time_on_page: { decimals: 0, empty: null, change: 'percent' },
  scroll_depth: { decimals: 0, empty: null, change: 'percent' },
  exit_rate: { decimals: 1, empty: null, change: 'difference' },
};

export function isMetricName(name: string): name is MetricName {
  return (METRIC_NAMES as readonly string[]).includes(name);
}

/** Over collapsed sessions. NULL means "no data" (shape-results applies `empty`). */
export const SESSION_METRIC_SQL: Partial<Record<MetricName, string>> = {
  visitors: 'uniqExact(visitor_id)',
  visits: 'count()',
  pageviews: 'sum(pageviews)',
  visit_duration: 'if(count() = 0, NULL, avg(duration))',
  bounce_rate: 'if(countIf(bounce_scope) = 0, NULL, 100 * sumIf(is_bounce, bounce_scope) / countIf(bounce_scope))',
  views_per_visit: 'if(count() = 0, NULL, sum(pageviews) / count())',
  engagement_time: 'if(count() = 0, NULL, sum(engagement_ms) / count() / 1000)',
};

/**
 * Over non-engagement event rows directly (no per-session step; the statement skips
 * engagement rows): the metrics that are plain counts of rows or distinct visitors.
 * Same values as `EVENT_METRIC_SQL` over the per-session rows (a visitor counts where
 * one of its non-engagement events is), without grouping every session first.
 */
export const FLAT_EVENT_METRIC_SQL: Partial<Record<MetricName, string>> = {
  visitors: 'uniqExact(visitor_id)',
  pageviews: "countIf(name = 'pageview')",
  events: 'count()',
};

/**
 * Over session rows directly, sign-weighted (no per-session step): every metric but
 * visitors is a sum over sessions, and a cancelled version is a +1/−1 pair of equal
 * rows that adds 0 to each sum. `bounce_scope` is bound by the statement (WITH).
 * visitors holds only when the group and filters read columns fixed for a session
 * (then a session's current row is kept exactly when any of its rows is).
 */
export const FLAT_SESSION_METRIC_SQL: Partial<Record<MetricName, string>> = {
  visitors: 'uniqExactIf(visitor_id, sign > 0)',
  visits: 'sum(sign)',
  pageviews: 'sum(pageviews * sign)',
  visit_duration: 'if(sum(sign) = 0, NULL, sum(duration * sign) / sum(sign))',
  bounce_rate: 'if(sumIf(sign, bounce_scope) = 0, NULL, 100 * sumIf(is_bounce * sign, bounce_scope) / sumIf(sign, bounce_scope))',
  views_per_visit: 'if(sum(sign) = 0, NULL, sum(pageviews * sign) / sum(sign))',
  engagement_time: 'if(sum(sign) = 0, NULL, sum(engagement_ms * sign) / sum(sign) / 1000)',
};

/** Over per-(group, session) event aggregates. */
export const EVENT_METRIC_SQL: Partial<Record<MetricName, string>> = {
  visitors: 'uniqExactIf(visitor_id, ev > 0)',
  pageviews: 'sum(pv)',
  events: 'sum(ev)',
  time_on_page: 'if(countIf(eng > 0) = 0, NULL, sum(eng) / countIf(eng > 0) / 1000)',
  scroll_depth: 'if(countIf(has_scroll) = 0, NULL, avgIf(scroll, has_scroll))',
};
