import type { FunnelStep, FunnelStepFigures, FunnelStepRow } from '@sightline/query-contract';

/**
 * A funnel statement's row → each step's figures, and a compare window's figures →
 * each step's change. Rates are percents rounded to 2 decimals and null over 0
 * visitors; the last step has no drop-off and no time to a next step (null).
 */
export type FunnelRawRow = Record<string, number | string | null>;

const round2 = (x: number) => Math.round(x * 100) / 100;
const percent = (part: number, whole: number) => (whole === 0 ? null : round2((100 * part) / whole));

export function stepFigures(steps: readonly FunnelStep[], row: FunnelRawRow | undefined): FunnelStepFigures[] {
  const visitors = steps.map((_, i) => Number(row?.[`v${i + 1}`] ?? 0));
  return steps.map((_, i) => {
    const last = i === steps.length - 1;
    const median = Number(row?.[`m${i + 1}`]);
    return {
      visitors: visitors[i]!,
      conversion_rate: percent(visitors[i]!, visitors[0]!),
      step_conversion_rate: i === 0 ? percent(visitors[0]!, visitors[0]!) : percent(visitors[i]!, visitors[i - 1]!),
      dropoff: last ? null : visitors[i]! - visitors[i + 1]!,
      // milliseconds → whole seconds; no visit reached the next step → null
      median_seconds_to_next: last || visitors[i + 1] === 0 || !Number.isFinite(median) ? null : Math.round(median / 1000),
    };
  });
}

const PERCENT_CHANGE: readonly (keyof FunnelStepFigures)[] = ['visitors', 'dropoff', 'median_seconds_to_next'];

/** POST /query's compare rule: percent change (integer) for counts and times, difference for rates; null where undefined. */
export function changeOf(metric: keyof FunnelStepFigures, current: number | null, previous: number | null): number | null {
  if (current === null || previous === null) return null;
  if (!PERCENT_CHANGE.includes(metric)) return round2(current - previous);
  if (previous === 0) return null;
  return Math.round(((current - previous) / previous) * 100);
}

export function stepRows(steps: readonly FunnelStep[], current: FunnelStepFigures[], previous?: FunnelStepFigures[]): FunnelStepRow[] {
  return steps.map((step, i) => {
    const figures = current[i]!;
    const row: FunnelStepRow = { step: i + 1, goal_id: step.goal_id, name: step.name, ...figures };
    if (previous) {
      const before = previous[i]!;
      const change = Object.fromEntries(
        (Object.keys(figures) as (keyof FunnelStepFigures)[]).map((key) => [key, changeOf(key, figures[key], before[key])]),
      ) as Record<keyof FunnelStepFigures, number | null>;
      row.comparison = { metrics: before, change };
    }
    return row;
  });
}
