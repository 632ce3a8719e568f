import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { dateText, datePair, EDGE_DATES, SITE_TIMEZONES, siteTimezone } from '../test-support/date-arbitraries.js';
import { checkInterval, listBuckets } from './buckets.js';
import { EARLIEST_DATE, LATEST_DATE, resolveCompareWindow, resolveWindow, type Window } from './resolve-dates.js';
import { daysBetween, isCalendarDate } from './zoned-time.js';

// Every date the parser accepts either resolves to a sane window or is refused with
// the spec's 400 code; nothing else may escape (a RangeError became a 500 before).
const NOW = Date.parse('2026-06-10T12:00:00Z');
const SEED = 20_261_127;

/** The window, or the ApiError code; any other throw fails the property. */
function outcome<T>(fn: () => T): T | { refused: string } {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ApiError) return { refused: error.code };
    throw error;
  }
}

function expectSaneWindow(window: Window, timezone: string): void {
  expect(Number.isFinite(window.startMs) && Number.isFinite(window.endMs), `${timezone} ${window.startDate}`).toBe(true);
  expect(window.startMs, `${timezone} ${window.startDate}..${window.endDate}`).toBeLessThanOrEqual(window.endMs);
  expect(window.startDate >= EARLIEST_DATE && window.endDate <= LATEST_DATE).toBe(true);
  for (const interval of ['day', 'week', 'month', 'hour'] as const) {
    if (interval === 'hour' && outcome(() => checkInterval('hour', window)) !== undefined) continue;
    const buckets = listBuckets(interval, window, timezone, 1);
    if (interval !== 'hour') expect(buckets[0]?.label).toBe(window.startDate);
  }
}

describe('date_range and compare over the whole YYYY-MM-DD space and every site timezone', () => {
  it('covers the timezones the site API stores', () => {
    expect(SITE_TIMEZONES.length).toBeGreaterThan(400);
    expect(SITE_TIMEZONES).toEqual(expect.arrayContaining(['UTC', 'Etc/GMT+12', 'Etc/GMT-14', 'Pacific/Kiritimati', 'America/Los_Angeles']));
  });

  it('resolves an explicit date_range or answers invalid_date_range', () => {
    fc.assert(
      fc.property(datePair, siteTimezone, ([start, end], timezone) => {
        const result = outcome(() => resolveWindow([start, end], timezone, NOW));
        const valid =
          isCalendarDate(start) && isCalendarDate(end) && start <= end && start >= EARLIEST_DATE && end <= LATEST_DATE && daysBetween(start, end) <= 366;
        if ('refused' in result) {
          expect(result.refused).toBe('invalid_date_range');
          expect(valid, `${start}..${end} refused`).toBe(false);
          return;
        }
        expect(valid, `${start}..${end} accepted`).toBe(true);
        expect([result.startDate, result.endDate]).toEqual([start, end]);
        expectSaneWindow(result, timezone);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('resolves compare (previous_period or an explicit pair) or answers invalid_compare / compare_length_mismatch', () => {
    const compare = fc.oneof(
      fc.constant('previous_period' as const),
      datePair,
      dateText.map((d): [string, string] => [d, d]),
    );
    fc.assert(
      fc.property(datePair, compare, siteTimezone, (range, against, timezone) => {
        const main = outcome(() => resolveWindow(range, timezone, NOW));
        if ('refused' in main) return;
        const result = outcome(() => resolveCompareWindow(against, main, timezone));
        if ('refused' in result) {
          expect(['invalid_compare', 'compare_length_mismatch']).toContain(result.refused);
          return;
        }
        expect(daysBetween(result.startDate, result.endDate)).toBe(daysBetween(main.startDate, main.endDate));
        expectSaneWindow(result, timezone);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('holds at the edges of the span in every timezone', () => {
    for (const timezone of SITE_TIMEZONES) {
      for (const edge of EDGE_DATES) {
        const result = outcome(() => resolveWindow([edge, edge], timezone, NOW));
        const inSpan = edge >= EARLIEST_DATE && edge <= LATEST_DATE;
        if ('refused' in result) expect([inSpan, result.refused], `${timezone} ${edge}`).toEqual([false, 'invalid_date_range']);
        else {
          expect(inSpan, `${timezone} ${edge}`).toBe(true);
          expectSaneWindow(result, timezone);
          const previous = outcome(() => resolveCompareWindow('previous_period', result, timezone));
          if ('refused' in previous) expect([edge, previous.refused]).toEqual([EARLIEST_DATE, 'invalid_compare']);
          else expectSaneWindow(previous, timezone);
        }
      }
      // the widest windows at both ends
      expectSaneWindow(resolveWindow([EARLIEST_DATE, '1901-01-01'], timezone, NOW), timezone);
      expectSaneWindow(resolveWindow(['2299-01-01', LATEST_DATE], timezone, NOW), timezone);
    }
  });
});
