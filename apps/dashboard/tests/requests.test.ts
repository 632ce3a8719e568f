import { describe, expect, it } from 'vitest';
import { resolvePeriod } from '../src/state/periods.js';
import { breakdownRequest, withCompare } from '../src/state/requests.js';
import { DEFAULT_STATE } from '../src/state/url-state.js';

describe('panel requests', () => {
  it('a panel breakdown carries the comparison period when compare is on', () => {
    const state = { ...DEFAULT_STATE, period: 'custom' as const, from: '2026-03-01', to: '2026-03-31', compare: 'year' as const };
    const period = resolvePeriod(state, '2026-11-27');
    const request = withCompare(breakdownRequest(state, period, 'visit:source', ['visitors'], 9), period);
    expect(request).toEqual({
      metrics: ['visitors'],
      date_range: ['2026-03-01', '2026-03-31'],
      dimensions: ['visit:source'],
      filters: [],
      limit: 9,
      compare: ['2025-03-01', '2025-03-31'],
    });
    const previous = resolvePeriod({ ...DEFAULT_STATE, compare: 'previous' }, '2026-11-27');
    expect(withCompare(breakdownRequest(DEFAULT_STATE, previous, 'visit:source', ['visitors'], 9), previous).compare).toBe('previous_period');
  });

  it('compare off, or the suggestions and details (no withCompare): no compare key', () => {
    const period = resolvePeriod(DEFAULT_STATE, '2026-11-27');
    expect(withCompare(breakdownRequest(DEFAULT_STATE, period, 'visit:source', ['visitors'], 9), period)).not.toHaveProperty('compare');
    const compared = resolvePeriod({ ...DEFAULT_STATE, compare: 'previous' }, '2026-11-27');
    expect(breakdownRequest({ ...DEFAULT_STATE, compare: 'previous' }, compared, 'visit:source', ['visitors'], 50)).not.toHaveProperty('compare');
  });
});
