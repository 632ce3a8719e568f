import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { seedVisits } from '@sightline/events-schema/testing';
import { parseQueryRequest } from '@sightline/query-contract';
import { makeTempDir } from '@sightline/testkit';
import { intlGeoLabels } from '../geo-labels.js';
import { handleListProps } from '../query-service.js';
import { datePair, SITE_TIMEZONES, siteTimezone } from '../test-support/date-arbitraries.js';
import { runQuery } from './run-query.js';

// The whole query path (parse → windows → SQL on chDB → shape) and GET /props with
// any explicit dates in any site timezone: an answer or the spec's 400, never a
// RangeError (a 500 at the edge). Before: years 0000–0999 and 9999-12-31 threw.
const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ingest/clickhouse');
const NOW = '2026-06-10T12:00:00.000Z';
const DATE_CODES = ['invalid_date_range', 'invalid_compare', 'compare_length_mismatch', 'invalid_interval'];

async function codeOrAnswer<T>(promise: Promise<T>): Promise<T | { refused: string }> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof ApiError) return { refused: error.code };
    throw error;
  }
}

describe('explicit dates of any year, in any site timezone, on chDB', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const query = async (body: Record<string, unknown>, timezone: string) =>
    runQuery({ events, geo: intlGeoLabels }, parseQueryRequest(body), { siteId: 1, timezone, weekStart: 1, goals: [], nowMs: Date.parse(NOW) });
  // the gateway hands ListProps `start,end` as a JSON pair
  const props = (range: string[], timezone: string) =>
    handleListProps(events, { site: { siteId: 1, timezone, weekStart: 1, now: NOW, goals: [] }, dateRange: JSON.stringify(range) });

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'extreme_dates_test' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(events, [{ visitor: 1, events: [{ at: '2026-06-01 10:00:00', path: '/' }] }], { siteId: 1 });
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  it('knows every timezone a site may have (time series pass it to ClickHouse)', async () => {
    // the zones ClickHouse embeds load; the few newer ones it finds in the system's tz data (loading each
    // of the 420 took 16 s, so only those are loaded here)
    const embedded = new Set((await events.query<{ time_zone: string }>('SELECT time_zone FROM system.time_zones')).map((row) => row.time_zone));
    const unloadable: string[] = [];
    for (const zone of SITE_TIMEZONES.filter((z) => !embedded.has(z))) {
      await events.query('SELECT toDate(now64(3), {tz:String}) AS day', { tz: zone }).catch(() => unloadable.push(zone));
    }
    expect(unloadable).toEqual([]);
    // what the sites service now refuses: Intl knows it, ClickHouse does not
    await expect(events.query('SELECT toDate(now64(3), {tz:String}) AS day', { tz: 'SystemV/EST5' })).rejects.toThrow(/time zone/i);
  });

  it('answers the reported dates with 400, and the edges of the span with numbers', async () => {
    const UTC = 'UTC';
    for (const range of [
      ['0500-01-01', '0500-01-02'],
      ['0000-01-01', '0000-01-01'],
      ['9999-12-31', '9999-12-31'],
      ['0999-12-31', '1000-01-01'],
      ['2300-01-01', '2300-01-01'],
    ]) {
      expect(await codeOrAnswer(query({ metrics: ['visitors'], date_range: range }, UTC)), range.join()).toEqual({ refused: 'invalid_date_range' });
      expect(
        await codeOrAnswer(query({ metrics: ['visitors'], date_range: ['2026-06-01', '2026-06-01'], compare: [range[0], range[0]] }, UTC)),
        range.join(),
      ).toEqual({ refused: 'invalid_compare' });
      expect(await codeOrAnswer(props(range, UTC)), range.join()).toEqual({ refused: 'invalid_date_range' });
    }
    // the first day has no previous period inside the span
    expect(await codeOrAnswer(query({ metrics: ['visitors'], date_range: ['1900-01-01', '1900-01-07'], compare: 'previous_period' }, UTC))).toEqual({
      refused: 'invalid_compare',
    });
    for (const timezone of ['Pacific/Kiritimati', 'Etc/GMT+12', 'Asia/Kathmandu']) {
      const first = await query({ metrics: ['visitors', 'pageviews'], date_range: ['1900-01-01', '1900-01-03'], dimensions: ['time:day'] }, timezone);
      expect(first.results.map((r) => [r.dimensions!['time:day'], r.metrics.visitors])).toEqual([
        ['1900-01-01', 0],
        ['1900-01-02', 0],
        ['1900-01-03', 0],
      ]);
      const last = await query({ metrics: ['visitors'], date_range: ['2299-12-01', '2299-12-31'], compare: 'previous_period' }, timezone);
      expect(last.results[0]!.metrics).toEqual({ visitors: 0 });
      expect((await props(['2299-12-31', '2299-12-31'], timezone)).props).toEqual([]);
    }
    // the seeded visit is still counted by a window reaching back to the span's start
    expect((await query({ metrics: ['visitors'], date_range: ['2026-01-01', '2026-12-31'] }, 'Pacific/Kiritimati')).results[0]!.metrics).toEqual({
      visitors: 1,
    });
  });

  it('answers any date_range / compare pair in any site timezone with numbers or a date code (fast-check)', async () => {
    const dimension = fc.constantFrom([], ['time:day'], ['time:week'], ['time:month'], ['time:hour'], ['event:page']);
    const compare = fc.option(fc.oneof(fc.constant('previous_period'), datePair), { nil: undefined });
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(datePair, compare, dimension, siteTimezone, async (range, against, dimensions, timezone) => {
        const body = { metrics: ['visitors'], date_range: range, dimensions, ...(against !== undefined ? { compare: against } : {}) };
        const answer = await codeOrAnswer(query(body, timezone));
        if ('refused' in answer) expect(DATE_CODES).toContain(answer.refused);
        else {
          answered += 1;
          expect(answer.query.date_range).toEqual(range);
        }
        const listed = await codeOrAnswer(props(range, timezone));
        if ('refused' in listed) expect(listed.refused).toBe('invalid_date_range');
        else expect(listed.dateRangeStart).toBe(range[0]);
      }),
      { seed: 20_261_127, numRuns: 200 },
    );
    // the run reached the events store, not only the refusals
    expect(answered).toBeGreaterThan(20);
  }, 120_000);
});
