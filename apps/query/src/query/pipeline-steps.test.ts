import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { checkInterval, listBuckets } from './buckets.js';
import { changeOf } from './compare.js';
import { goalPattern } from './goal-match-sql.js';
import { parseQueryRequest } from '@sightline/query-contract';
import { planQuery } from './plan.js';
import { resolveCompareWindow, resolveWindow } from './resolve-dates.js';
import { validateQuery } from './validate.js';
import { addDays, localDate, startOfLocalDay } from './zoned-time.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return 'no error';
};
const validate = (body: Record<string, unknown>) => validateQuery(parseQueryRequest({ date_range: '7d', metrics: ['visitors'], ...body }));

describe('parse + validate', () => {
  it('answers each 400 code of the spec', () => {
    expect(codeOf(() => parseQueryRequest({ date_range: '7d' }))).toBe('metrics_required');
    expect(codeOf(() => parseQueryRequest({ date_range: '7d', metrics: [] }))).toBe('metrics_required');
    expect(codeOf(() => parseQueryRequest({ metrics: ['visitors'] }))).toBe('invalid_date_range');
    expect(codeOf(() => validate({ dimensions: ['visit:source', 'visit:os'] }))).toBe('too_many_dimensions');
    expect(codeOf(() => validate({ metrics: ['nope'] }))).toBe('unknown_metric');
    expect(codeOf(() => validate({ metrics: ['exit_rate'], dimensions: ['event:page'] }))).toBe('metric_not_available');
    expect(codeOf(() => validate({ metrics: ['events'] }))).toBe('metric_not_available');
    expect(codeOf(() => validate({ metrics: ['pageviews'], dimensions: ['visit:source'] }))).toBe('metric_not_available');
    expect(codeOf(() => validate({ metrics: ['engagement_time'], dimensions: ['event:page'] }))).toBe('metric_not_available');
    expect(validate({ metrics: ['engagement_time'], dimensions: ['time:week'] }).metrics).toEqual(['engagement_time']);
    expect(codeOf(() => validate({ metrics: ['conversion_rate'], dimensions: ['event:name'] }))).toBe('metric_not_available');
    expect(codeOf(() => validate({ dimensions: ['visit:shoe_size'] }))).toBe('unknown_dimension');
    expect(codeOf(() => validate({ dimensions: ['constructor'] }))).toBe('unknown_dimension');
    expect(codeOf(() => validate({ dimensions: ['event:props:plan'] }))).toBe('event_filter_required');
    expect(codeOf(() => validate({ limit: 5 }))).toBe('limit_offset_misuse');
    expect(codeOf(() => validate({ offset: 0, dimensions: ['time:day'] }))).toBe('limit_offset_misuse');
    expect(codeOf(() => validate({ filters: [{ field: 'shoe', operator: 'is', values: ['x'] }] }))).toBe('invalid_filter');
    expect(codeOf(() => validate({ filters: [{ field: 'page', operator: 'like', values: ['x'] }] }))).toBe('invalid_filter');
    expect(codeOf(() => validate({ filters: [{ field: 'page', operator: 'is', values: [] }] }))).toBe('invalid_filter');
    expect(codeOf(() => validate({ filters: [{ field: 'event', operator: 'is', values: ['pageview'] }] }))).toBe('invalid_filter');
    expect(codeOf(() => validate({ filters: [{ field: 'event', operator: 'is', values: ['a', 'b'] }] }))).toBe('invalid_filter');
    expect(codeOf(() => validate({ filters: [{ field: 'event', operator: 'is_not', values: ['Signup'] }] }))).toBe('invalid_filter');
    expect(codeOf(() => validate({ filters: [{ field: 'code', operator: 'is', values: ['four'] }] }))).toBe('invalid_filter');
    expect(codeOf(() => parseQueryRequest({ metrics: ['visitors'], date_range: '7d', compare: 5 }))).toBe('invalid_compare');
    expect(codeOf(() => parseQueryRequest({ metrics: ['visitors'], date_range: '7d', surprise: 1 }))).toBe('invalid_request');
  });

  it('clamps limit to 1..1000 and defaults the page', () => {
    expect(validate({ dimensions: ['visit:source'] })).toMatchObject({ limit: 100, offset: 0, shape: 'breakdown' });
    expect(validate({ dimensions: ['visit:source'], limit: 0 }).limit).toBe(1);
    expect(validate({ dimensions: ['visit:source'], limit: 5000 }).limit).toBe(1000);
  });

  it('plans each metric on the table that computes it', () => {
    const page = planQuery(validate({ metrics: ['bounce_rate', 'visitors', 'scroll_depth'], dimensions: ['event:page'] }));
    expect(page.primary).toMatchObject({ kind: 'events', metrics: ['visitors', 'scroll_depth'], rankBy: 'visitors' });
    expect(page.secondary).toMatchObject([{ kind: 'sessions', metrics: ['bounce_rate'], groupSql: 'entry_page' }]);
    const aggregate = planQuery(validate({ metrics: ['visits', 'pageviews'] }));
    expect(aggregate.primary).toMatchObject({ kind: 'events', metrics: ['pageviews'] });
    expect(aggregate.secondary).toMatchObject([{ kind: 'sessions', metrics: ['visits'] }]);
  });
});

describe('dates', () => {
  const now = Date.parse('2026-06-10T02:00:00Z');
  it('resolves Nd, month and explicit ranges in the site timezone', () => {
    expect(resolveWindow('7d', 'America/Los_Angeles', now)).toMatchObject({ startDate: '2026-06-03', endDate: '2026-06-09' });
    expect(resolveWindow('7d', 'UTC', now)).toMatchObject({ startDate: '2026-06-04', endDate: '2026-06-10' });
    expect(resolveWindow('1d', 'UTC', now)).toMatchObject({
      startDate: '2026-06-10',
      endDate: '2026-06-10',
      startMs: Date.parse('2026-06-10T00:00:00Z'),
      endMs: Date.parse('2026-06-11T00:00:00Z'),
    });
    expect(resolveWindow('month', 'Asia/Tokyo', now)).toMatchObject({
      startDate: '2026-06-01',
      endDate: '2026-06-10',
      startMs: Date.parse('2026-05-31T15:00:00Z'),
    });
    expect(resolveWindow(['2026-01-01', '2027-01-01'], 'UTC', now)).toMatchObject({ startDate: '2026-01-01', endDate: '2027-01-01' });
    expect(resolveWindow('realtime', 'UTC', Date.parse('2026-06-10T02:00:40Z'))).toMatchObject({
      kind: 'realtime',
      startMs: Date.parse('2026-06-10T01:30:00Z'),
    });
  });

  it('refuses anything else with invalid_date_range', () => {
    for (const range of ['0d', '91d', '7', 'yesterday', 'd7', '07d'] as const)
      expect(
        codeOf(() => resolveWindow(range, 'UTC', now)),
        range,
      ).toBe('invalid_date_range');
    expect(codeOf(() => resolveWindow('90d', 'UTC', now))).toBe('no error');
    expect(codeOf(() => resolveWindow(['2026-01-01', '2027-01-02'], 'UTC', now))).toBe('invalid_date_range');
    expect(codeOf(() => resolveWindow(['2026-02-30', '2026-03-01'], 'UTC', now))).toBe('invalid_date_range');
    expect(codeOf(() => resolveWindow(['2026-03-02', '2026-03-01'], 'UTC', now))).toBe('invalid_date_range');
  });

  it('compares with the previous period or an equal-length pair', () => {
    const main = resolveWindow(['2026-06-08', '2026-06-14'], 'UTC', now);
    expect(resolveCompareWindow('previous_period', main, 'UTC')).toMatchObject({ startDate: '2026-06-01', endDate: '2026-06-07' });
    expect(resolveCompareWindow(['2025-06-08', '2025-06-14'], main, 'UTC')).toMatchObject({ startDate: '2025-06-08', endDate: '2025-06-14' });
    expect(codeOf(() => resolveCompareWindow(['2025-06-08', '2025-06-13'], main, 'UTC'))).toBe('compare_length_mismatch');
    expect(codeOf(() => resolveCompareWindow('last_year', main, 'UTC'))).toBe('invalid_compare');
    expect(codeOf(() => resolveCompareWindow(['2025-06-14', '2025-06-08'], main, 'UTC'))).toBe('invalid_compare');
  });

  it('finds local midnight across DST changes', () => {
    expect(startOfLocalDay('2026-03-29', 'Europe/Berlin')).toBe(Date.parse('2026-03-28T23:00:00Z'));
    expect(startOfLocalDay('2026-03-30', 'Europe/Berlin')).toBe(Date.parse('2026-03-29T22:00:00Z'));
    expect(startOfLocalDay('2026-10-26', 'Europe/Berlin')).toBe(Date.parse('2026-10-25T23:00:00Z'));
  });

  it('starts a day at its first local instant where the clock changes at midnight', () => {
    // Havana falls back 01:00 → 00:00: the first of two midnights (CDT, UTC−4)
    expect(startOfLocalDay('2026-11-01', 'America/Havana')).toBe(Date.parse('2026-11-01T04:00:00Z'));
    // Havana springs forward 00:00 → 01:00: 01:00 CDT is the day's first instant
    expect(startOfLocalDay('2026-03-08', 'America/Havana')).toBe(Date.parse('2026-03-08T05:00:00Z'));
    // Santiago falls back 24:00 → 23:00: the repeated hour is the day before's; 04-05 starts at 00:00 UTC−4
    expect(startOfLocalDay('2026-04-05', 'America/Santiago')).toBe(Date.parse('2026-04-05T04:00:00Z'));
    // Santiago springs forward 24:00 → 01:00
    expect(startOfLocalDay('2026-09-06', 'America/Santiago')).toBe(Date.parse('2026-09-06T04:00:00Z'));
    // Beirut springs forward 00:00 → 01:00 (UTC+3), falls back 00:00 → 23:00
    expect(startOfLocalDay('2026-03-29', 'Asia/Beirut')).toBe(Date.parse('2026-03-28T22:00:00Z'));
    expect(startOfLocalDay('2026-10-25', 'Asia/Beirut')).toBe(Date.parse('2026-10-24T22:00:00Z'));
    // Ittoqqortoormiit falls back 00:00 → 23:00 (UTC−1 → UTC−2)
    expect(startOfLocalDay('2026-10-25', 'America/Scoresbysund')).toBe(Date.parse('2026-10-25T02:00:00Z'));
    // the extremes of the offsets, and a day a zone skipped entirely (Apia, 2011-12-30) begins where the next one does
    expect(startOfLocalDay('2026-06-01', 'Pacific/Kiritimati')).toBe(Date.parse('2026-05-31T10:00:00Z'));
    expect(startOfLocalDay('2026-06-01', 'Etc/GMT+12')).toBe(Date.parse('2026-06-01T12:00:00Z'));
    expect(startOfLocalDay('2011-12-30', 'Pacific/Apia')).toBe(startOfLocalDay('2011-12-31', 'Pacific/Apia'));
  });
  it('answers the first second of the local day in every zone, and on every day of a year where clocks change at midnight', () => {
    const sample = ['1900-01-01', '1937-07-01', '1970-01-01', '1995-12-31', '2011-12-29', '2011-12-30', '2011-12-31', '2040-03-10'];
    for (let month = 0; month < 12; month += 1) sample.push(addDays('2026-01-01', Math.round(month * 30.5)), addDays('2026-01-15', Math.round(month * 30.5)));
    const everyDay = Array.from({ length: 366 }, (_, day) => addDays('2026-01-01', day));
    const midnightChanges = [
      'America/Havana',
      'America/Santiago',
      'Asia/Beirut',
      'America/Scoresbysund',
      'Asia/Gaza',
      'America/Asuncion',
      'Africa/Cairo',
      'Pacific/Apia',
      'Europe/Berlin',
      'Australia/Lord_Howe',
    ];
    const cases = [
      ...Intl.supportedValuesOf('timeZone').flatMap((zone) => sample.map((date) => [zone, date] as const)),
      ...midnightChanges.flatMap((zone) => everyDay.map((date) => [zone, date] as const)),
    ];
    const wrong: string[] = [];
    for (const [zone, date] of cases) {
      const start = startOfLocalDay(date, zone);
      // the definition: a whole second whose local date is `date` or later, the second before it earlier
      const first = start % 1000 === 0 && localDate(start, zone) >= date && localDate(start - 1000, zone) < date;
      if (!first || startOfLocalDay(date, zone) !== start) wrong.push(`${zone} ${date} ${new Date(start).toISOString()}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('buckets', () => {
  const berlin = (date: string) => resolveWindow([date, date], 'Europe/Berlin', 0);
  it('has 23 and 25 hourly buckets on DST days, labelled in local time', () => {
    const spring = listBuckets('hour', berlin('2026-03-29'), 'Europe/Berlin', 1).map((b) => b.label);
    expect(spring).toHaveLength(23);
    expect(spring.slice(0, 3)).toEqual(['2026-03-29 00:00', '2026-03-29 01:00', '2026-03-29 03:00']);
    const autumn = listBuckets('hour', berlin('2026-10-25'), 'Europe/Berlin', 1).map((b) => b.label);
    expect(autumn).toHaveLength(25);
    expect(autumn.slice(1, 5)).toEqual(['2026-10-25 01:00', '2026-10-25 02:00', '2026-10-25 02:00', '2026-10-25 03:00']);
  });

  it('starts weeks on week_start and labels a partial first week with the window’s first day', () => {
    const window = resolveWindow(['2026-06-01', '2026-06-14'], 'UTC', 0); // 06-01 is a Monday
    expect(listBuckets('week', window, 'UTC', 1).map((b) => b.label)).toEqual(['2026-06-01', '2026-06-08']);
    expect(listBuckets('week', window, 'UTC', 0).map((b) => b.label)).toEqual(['2026-06-01', '2026-06-07', '2026-06-14']);
    expect(listBuckets('week', window, 'UTC', 3).map((b) => b.label)).toEqual(['2026-06-01', '2026-06-03', '2026-06-10']);
    expect(listBuckets('month', resolveWindow(['2026-05-15', '2026-07-01'], 'UTC', 0), 'UTC', 1).map((b) => b.label)).toEqual([
      '2026-05-15',
      '2026-06-01',
      '2026-07-01',
    ]);
  });

  it('refuses buckets unsuited to the window with invalid_interval', () => {
    const realtime = resolveWindow('realtime', 'UTC', Date.parse('2026-06-10T02:00:00Z'));
    expect(listBuckets('minute', realtime, 'UTC', 1)).toHaveLength(31);
    expect(codeOf(() => checkInterval('day', realtime))).toBe('invalid_interval');
    expect(codeOf(() => checkInterval('minute', resolveWindow('7d', 'UTC', 0)))).toBe('invalid_interval');
    expect(codeOf(() => checkInterval('hour', resolveWindow(['2026-01-01', '2026-02-01'], 'UTC', 0)))).toBe('invalid_interval');
    expect(codeOf(() => checkInterval('hour', resolveWindow(['2026-01-01', '2026-01-31'], 'UTC', 0)))).toBe('no error');
  });
});

describe('compare change', () => {
  it('is a percent change for counts and an absolute difference for rates; null when undefined', () => {
    expect(changeOf('visitors', 1, 3)).toBe(-67);
    expect(changeOf('visitors', 3, 0)).toBeNull();
    expect(changeOf('visit_duration', null, 10)).toBeNull();
    expect(changeOf('bounce_rate', 100, 50)).toBe(50);
    expect(changeOf('conversion_rate', 33.33, 66.67)).toBe(-33.34);
  });
});

describe('goal patterns', () => {
  it('turns * into a wildcard and keeps everything else literal', () => {
    expect(goalPattern('/blog/*')).toBe('^/blog/.*$');
    expect(goalPattern('/a.b?(c)')).toBe('^/a\\.b\\?\\(c\\)$');
    // a run of wildcards is one wildcard
    expect(goalPattern('/blog/**/c***')).toBe('^/blog/.*/c.*$');
  });
});
