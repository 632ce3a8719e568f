/**
 * How numbers read on the page: compact counts (1.2k, 3.4M), percentages, durations
 * (1m 05s), changes (+12% / −3 pp), and country flags from regional indicator
 * letters. Pure: no DOM.
 */
export type MetricKind = 'count' | 'percent' | 'duration' | 'decimal';

export const METRIC_KIND: Record<string, MetricKind> = {
  visitors: 'count',
  visits: 'count',
  pageviews: 'count',
  events: 'count',
  bounce_rate: 'percent',
  exit_rate: 'percent',
  conversion_rate: 'percent',
  scroll_depth: 'percent',
  visit_duration: 'duration',
  time_on_page: 'duration',
  engagement_time: 'duration',
  views_per_visit: 'decimal',
};

export const METRIC_LABELS: Record<string, string> = {
  visitors: 'Visitors',
  visits: 'Visits',
  pageviews: 'Pageviews',
  events: 'Events',
  views_per_visit: 'Views per visit',
  bounce_rate: 'Bounce rate',
  visit_duration: 'Visit duration',
  time_on_page: 'Time on page',
  scroll_depth: 'Scroll depth',
  exit_rate: 'Exit rate',
  conversion_rate: 'Conversion rate',
  engagement_time: 'Engagement time',
};

/** Rates whose change the API gives as a difference in percentage points (spec: compare). */
export const DIFFERENCE_METRICS = new Set(['bounce_rate', 'exit_rate', 'conversion_rate']);

export function formatCount(value: number): string {
  const abs = Math.abs(value);
  if (abs < 1000) return String(Math.round(value));
  const [divisor, suffix] = abs < 1e6 ? [1e3, 'k'] : abs < 1e9 ? [1e6, 'M'] : [1e9, 'B'];
  const scaled = value / divisor;
  const text = Math.abs(scaled) < 10 ? scaled.toFixed(1) : String(Math.round(scaled));
  // 999.95k rounds to "1000k": say 1.0M instead
  if (text === '1000' && suffix !== 'B') return suffix === 'k' ? '1.0M' : '1.0B';
  return `${text.replace(/\.0$/, '')}${suffix}`;
}

export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  if (total < 60) return `${total}s`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  return `${minutes}m ${String(secs).padStart(2, '0')}s`;
}

/** A metric value as shown; null (no data: an average over nothing) reads as an en dash. */
export function formatMetric(metric: string, value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  switch (METRIC_KIND[metric] ?? 'count') {
    case 'count':
      return formatCount(value);
    case 'percent':
      return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
    case 'duration':
      return formatDuration(value);
    case 'decimal':
      return value.toFixed(2);
  }
}

/**
 * A total as the top stats show it: over no visits the API answers 0 for rates
 * and averages (bounce rate 0%, 0.00 views per visit), which are no values: a dash.
 */
export function formatTotal(metric: string, metrics: Record<string, number | null | undefined>): string {
  if (metrics['visits'] === 0 && (METRIC_KIND[metric] ?? 'count') !== 'count') return '–';
  return formatMetric(metric, metrics[metric]);
}

/** The exact value (tables, CSV, tooltips): integers with thousands separators. */
export function formatExact(metric: string, value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if ((METRIC_KIND[metric] ?? 'count') === 'count') return Math.round(value).toLocaleString('en-US');
  return formatMetric(metric, value);
}

export interface ChangeView {
  text: string;
  /** up/down/flat for the arrow; good/bad for the colour (a lower bounce rate is good) */
  direction: 'up' | 'down' | 'flat';
  good: boolean | undefined;
}

export function formatChange(metric: string, change: number | null | undefined): ChangeView | undefined {
  if (change === null || change === undefined || !Number.isFinite(change)) return undefined;
  const direction = change > 0 ? 'up' : change < 0 ? 'down' : 'flat';
  const lowerIsBetter = metric === 'bounce_rate' || metric === 'exit_rate';
  const good = direction === 'flat' ? undefined : (direction === 'up') !== lowerIsBetter;
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  const magnitude = Math.abs(change);
  const number = Number.isInteger(magnitude) ? String(magnitude) : magnitude.toFixed(DIFFERENCE_METRICS.has(metric) ? 1 : 0);
  return { text: `${sign}${number}${DIFFERENCE_METRICS.has(metric) ? ' pp' : '%'}`, direction, good };
}

export interface ComparisonView extends ChangeView {
  /** "was 40%": absent when the comparison period had no visits (its 0% bounce rate is no value) */
  previous?: string;
  /** the whole comparison for a screen reader */
  label: string;
}

/** The visits (or, on breakdown rows without visits, the visitors) a side of a comparison counted. */
function visitCount(values: Record<string, number | null | undefined>): number | undefined {
  const count = values['visits'] ?? values['visitors'];
  return typeof count === 'number' ? count : undefined;
}

/**
 * A metric's change against the comparison period, as a stat or a row shows it.
 * Decided on the comparison's visits, not on the metric: with no visits there the
 * API still answers 0 for rates (bounce rate 0%), which would read "+23 pp, was 0%";
 * instead the change reads "new" (visits now) or "—" (none in either period).
 */
export function comparisonOf(
  metric: string,
  current: Record<string, number | null | undefined>,
  comparison: { metrics: Record<string, number | null | undefined>; change: Record<string, number | null | undefined> } | undefined,
): ComparisonView | undefined {
  if (!comparison) return undefined;
  const before = visitCount(comparison.metrics);
  if (before === 0) {
    const now = visitCount(current) ?? 0;
    return now > 0
      ? { text: 'new', direction: 'flat', good: undefined, label: 'new: no visits in the comparison period' }
      : { text: '—', direction: 'flat', good: undefined, label: 'no visits in either period' };
  }
  const previous = `was ${formatMetric(metric, comparison.metrics[metric])}`;
  const change = formatChange(metric, comparison.change[metric]);
  if (!change) return { text: '—', direction: 'flat', good: undefined, previous, label: `no change to show, ${previous}` };
  return { ...change, previous, label: `${change.text} against the comparison period, ${previous}` };
}

/** 🇩🇪 from "DE" (two regional indicator symbols); '' for anything that is not two ASCII letters. */
export function flagOf(alpha2: string): string {
  if (!/^[A-Za-z]{2}$/.test(alpha2)) return '';
  const base = 0x1f1e6 - 65;
  const upper = alpha2.toUpperCase();
  return String.fromCodePoint(base + upper.charCodeAt(0), base + upper.charCodeAt(1));
}

/**
 * The href of a referrer value, only for http(s) URLs (a bare host gets https://);
 * anything else (javascript:, data:, text with spaces or control characters) → undefined,
 * and the value is shown as text only.
 */
export function referrerHref(value: string): string | undefined {
  if (/[\s\u0000-\u001f\u007f]/.test(value) || value.length > 2000) return undefined;
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname.includes('.')) return undefined;
  return url.href;
}
