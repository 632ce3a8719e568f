import { describe, expect, it } from 'vitest';
import { currentBucket, daysIn, intervalsFor, localNow, resolvePeriod } from '../src/state/periods.js';
import { DEFAULT_STATE, type DashboardState } from '../src/state/url-state.js';

const at = (change: Partial<DashboardState>) => ({ ...DEFAULT_STATE, ...change });
const TODAY = '2026-03-15';

describe('periods', () => {
  it('sends the API its own relative ranges where it has them', () => {
    expect(resolvePeriod(at({ period: 'realtime' }), TODAY)).toMatchObject({ dateRange: 'realtime', intervals: ['minute'], interval: 'minute' });
    expect(resolvePeriod(at({ period: 'day' }), TODAY)).toMatchObject({ dateRange: '1d', start: TODAY, end: TODAY, interval: 'hour', includesToday: true });
    expect(resolvePeriod(at({ period: '7d' }), TODAY)).toMatchObject({ dateRange: '7d', start: '2026-03-09', end: TODAY, interval: 'day' });
    expect(resolvePeriod(at({ period: '28d' }), TODAY)).toMatchObject({ dateRange: '28d', start: '2026-02-16' });
    expect(resolvePeriod(at({ period: '30d' }), TODAY)).toMatchObject({ dateRange: '30d', start: '2026-02-14' });
    expect(resolvePeriod(at({ period: 'month' }), TODAY)).toMatchObject({ dateRange: 'month', start: '2026-03-01', end: TODAY });
  });

  it('computes explicit ranges for the others, within 366 days', () => {
    expect(resolvePeriod(at({ period: 'yesterday' }), TODAY)).toMatchObject({ dateRange: ['2026-03-14', '2026-03-14'], includesToday: false });
    expect(resolvePeriod(at({ period: 'last_month' }), TODAY)).toMatchObject({ dateRange: ['2026-02-01', '2026-02-28'] });
    expect(resolvePeriod(at({ period: 'last_month' }), '2026-01-10')).toMatchObject({ dateRange: ['2025-12-01', '2025-12-31'] });
    expect(resolvePeriod(at({ period: '12mo' }), TODAY)).toMatchObject({ dateRange: ['2025-04-01', TODAY], interval: 'month' });
    const all = resolvePeriod(at({ period: '366d' }), TODAY);
    expect(all.dateRange).toEqual(['2025-03-15', TODAY]);
    expect(daysIn(all.start, all.end)).toBe(366);
    const custom = resolvePeriod(at({ period: 'custom', from: '2020-01-01', to: '2026-01-01' }), TODAY);
    expect(daysIn(custom.start, custom.end)).toBe(366);
  });

  it('offers only the intervals the API accepts (hour ≤ 31 days, minute only realtime)', () => {
    expect(intervalsFor('day', 1)).toEqual(['hour', 'day']);
    expect(intervalsFor('30d', 30)).toEqual(['hour', 'day', 'week']);
    expect(intervalsFor('custom', 32)).toEqual(['day', 'week', 'month']);
    expect(resolvePeriod(at({ period: '12mo', interval: 'hour' }), TODAY).interval).toBe('month');
    expect(resolvePeriod(at({ period: '30d', interval: 'week' }), TODAY).interval).toBe('week');
  });

  it('compares with the previous period or the same dates a year before, same length', () => {
    expect(resolvePeriod(at({ compare: 'previous' }), TODAY).compare).toBe('previous_period');
    expect(resolvePeriod(at({ compare: 'off' }), TODAY).compare).toBeUndefined();
    expect(resolvePeriod(at({ period: '7d', compare: 'year' }), TODAY).compare).toEqual(['2025-03-09', '2025-03-15']);
    // 29 Feb 2024 a year later is 28 Feb 2025; the length stays 7 days
    expect(resolvePeriod(at({ period: '7d', compare: 'year' }), '2025-03-06').compare).toEqual(['2024-02-28', '2024-03-05']);
    expect(resolvePeriod(at({ period: 'realtime', compare: 'year' }), TODAY).compare).toBe('previous_period');
  });

  it("reads the site's local date and minute", () => {
    const instant = Date.parse('2026-03-14T23:30:00Z');
    expect(localNow(instant, 'Europe/Berlin')).toEqual({ date: '2026-03-15', minute: '2026-03-15 00:30' });
    expect(localNow(instant, 'America/New_York')).toEqual({ date: '2026-03-14', minute: '2026-03-14 19:30' });
  });

  it('finds the partial bucket; none in a closed window', () => {
    expect(currentBucket(['2026-03-13', '2026-03-14', '2026-03-15'], '2026-03-15 10:00', true)).toBe(2);
    expect(currentBucket(['2026-03-01', '2026-03-09'], '2026-03-15 10:00', true)).toBe(1);
    expect(currentBucket(['2026-03-15 09:00', '2026-03-15 10:00', '2026-03-15 11:00'], '2026-03-15 10:42', true)).toBe(1);
    expect(currentBucket(['2026-03-15 10:41', '2026-03-15 10:42'], '2026-03-15 10:42', true)).toBe(1);
    expect(currentBucket(['2026-03-13', '2026-03-14'], '2026-03-15 10:00', false)).toBe(-1);
  });
});
