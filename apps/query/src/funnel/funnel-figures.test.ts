import { describe, expect, it } from 'vitest';
import type { FunnelStep } from '@sightline/query-contract';
import { changeOf, stepFigures, stepRows } from './funnel-figures.js';

const steps: FunnelStep[] = [
  { goal_id: 1, name: 'A', page_path: '/a' },
  { goal_id: 2, name: 'B', event_name: 'B' },
  { goal_id: 3, name: 'C', page_path: '/c/*' },
];

describe('funnel figures', () => {
  it('rates in percent with 2 decimals (rounded half up), drop-off, medians in whole seconds; the last step has neither', () => {
    // 3 → 2 → 1: 66.666… → 66.67, 33.333… → 33.33, 1/2 → 50; median 1499 ms → 1 s, 1500 ms → 2 s
    expect(stepFigures(steps, { v1: 3, v2: 2, v3: 1, m1: 1499, m2: 1500 })).toEqual([
      { visitors: 3, conversion_rate: 100, step_conversion_rate: 100, dropoff: 1, median_seconds_to_next: 1 },
      { visitors: 2, conversion_rate: 66.67, step_conversion_rate: 66.67, dropoff: 1, median_seconds_to_next: 2 },
      { visitors: 1, conversion_rate: 33.33, step_conversion_rate: 50, dropoff: null, median_seconds_to_next: null },
    ]);
  });

  it('nobody at a step: rates over it are null, its median is null whatever the engine says (nan)', () => {
    expect(stepFigures(steps, { v1: 2, v2: 0, v3: 0, m1: 'nan', m2: 'nan' })).toEqual([
      { visitors: 2, conversion_rate: 100, step_conversion_rate: 100, dropoff: 2, median_seconds_to_next: null },
      { visitors: 0, conversion_rate: 0, step_conversion_rate: 0, dropoff: 0, median_seconds_to_next: null },
      { visitors: 0, conversion_rate: 0, step_conversion_rate: null, dropoff: null, median_seconds_to_next: null },
    ]);
    expect(stepFigures(steps, undefined).map((f) => f.conversion_rate)).toEqual([null, null, null]);
  });

  it('changes: percent (integer) for counts and times, difference for rates, null from 0 or from nothing', () => {
    expect(changeOf('visitors', 3, 2)).toBe(50);
    expect(changeOf('visitors', 1, 3)).toBe(-67);
    expect(changeOf('visitors', 3, 0)).toBeNull();
    expect(changeOf('median_seconds_to_next', 90, 60)).toBe(50);
    expect(changeOf('conversion_rate', 33.33, 66.67)).toBe(-33.34);
    expect(changeOf('step_conversion_rate', 50, null)).toBeNull();
    const rows = stepRows(
      steps.slice(0, 2),
      stepFigures(steps.slice(0, 2), { v1: 4, v2: 1, m1: 10_000 }),
      stepFigures(steps.slice(0, 2), { v1: 2, v2: 1, m1: 20_000 }),
    );
    expect(rows[0]).toEqual({
      step: 1,
      goal_id: 1,
      name: 'A',
      visitors: 4,
      conversion_rate: 100,
      step_conversion_rate: 100,
      dropoff: 3,
      median_seconds_to_next: 10,
      comparison: {
        metrics: { visitors: 2, conversion_rate: 100, step_conversion_rate: 100, dropoff: 1, median_seconds_to_next: 20 },
        change: { visitors: 100, conversion_rate: 0, step_conversion_rate: 0, dropoff: 200, median_seconds_to_next: -50 },
      },
    });
    expect(rows[1]!.comparison!.change).toEqual({ visitors: 0, conversion_rate: -25, step_conversion_rate: -25, dropoff: null, median_seconds_to_next: null });
  });
});
