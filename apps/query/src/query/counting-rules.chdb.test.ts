import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { seedVisits, type SeedVisit } from '@sightline/events-schema/testing';
import { parseQueryRequest } from '@sightline/query-contract';
import { makeTempDir } from '@sightline/testkit';
import { intlGeoLabels } from '../geo-labels.js';
import { runQuery } from './run-query.js';
import type { ReportSite } from './report-site.js';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ingest/clickhouse');

/*
 * The counting rules of SEMANTICS.md that issue 29 made exact, each on live rows
 * (import_id 0) and on imported rows (import_id 9) of the same visits.
 *
 * Exit pages, 2026-06-02 (UTC), host example.com:
 *   A v1 10:00 /a, 10:01 /b → exit /b     B v2 11:00 /b → exit /b
 *   C v3 12:00 /c, 12:01 /a → exit /a     D v4 13:00 /a → exit /a     E v5 14:00 /d → exit /d
 *   pageviews /a 3, /b 2, /c 1, /d 1; exits /a 2, /b 2, /d 1
 *   → exit rate /b 100, /d 100, /a 66.7 (/c has no exit: no row)
 * Hostnames, 2026-06-03 (UTC):
 *   H1 v11 Google 10:00 a.com /x, 10:01 b.com /y → entered on a.com, left from b.com /y, 60 s
 *   H2 v12 Google 11:00 b.com /y              → b.com only, a bounce
 *   H3 v13 Bing   12:00 b.com /z, 12:02 a.com /x → entered on b.com, left from a.com /x, 120 s
 * Day starts (each day's first local instant):
 *   America/Santiago falls back 24:00 → 23:00 on 2026-04-04 (03:00Z): 02:30Z and 03:30Z are
 *   both 04-04 23:30 (v21, v22); 04:30Z is 04-05 00:30 (v23).
 *   America/Havana falls back 01:00 → 00:00 on 2026-11-01 (05:00Z): 03:30Z is 10-31 23:30
 *   (v31); 04:30Z and 05:30Z are both 11-01 00:30 (v32, v33).
 *   Asia/Beirut springs forward 00:00 → 01:00 on 2026-03-29 (22:00Z on 03-28): 21:30Z is
 *   03-28 23:30 (v41); 22:30Z is 03-29 01:30 (v42).
 */
const visits: SeedVisit[] = [
  {
    visitor: 1,
    events: [
      { at: '2026-06-02 10:00:00', path: '/a' },
      { at: '2026-06-02 10:01:00', path: '/b' },
    ],
  },
  { visitor: 2, events: [{ at: '2026-06-02 11:00:00', path: '/b' }] },
  {
    visitor: 3,
    events: [
      { at: '2026-06-02 12:00:00', path: '/c' },
      { at: '2026-06-02 12:01:00', path: '/a' },
    ],
  },
  { visitor: 4, events: [{ at: '2026-06-02 13:00:00', path: '/a' }] },
  { visitor: 5, events: [{ at: '2026-06-02 14:00:00', path: '/d' }] },
  {
    visitor: 11,
    attrs: { source: 'Google', utm_source: 'g' },
    events: [
      { at: '2026-06-03 10:00:00', hostname: 'a.com', path: '/x' },
      { at: '2026-06-03 10:01:00', hostname: 'b.com', path: '/y' },
    ],
  },
  { visitor: 12, attrs: { source: 'Google', utm_source: 'g' }, events: [{ at: '2026-06-03 11:00:00', hostname: 'b.com', path: '/y' }] },
  {
    visitor: 13,
    attrs: { source: 'Bing', utm_source: 'b' },
    events: [
      { at: '2026-06-03 12:00:00', hostname: 'b.com', path: '/z' },
      { at: '2026-06-03 12:02:00', hostname: 'a.com', path: '/x' },
    ],
  },
  { visitor: 21, events: [{ at: '2026-04-05 02:30:00' }] },
  { visitor: 22, events: [{ at: '2026-04-05 03:30:00' }] },
  { visitor: 23, events: [{ at: '2026-04-05 04:30:00' }] },
  { visitor: 31, events: [{ at: '2026-11-01 03:30:00' }] },
  { visitor: 32, events: [{ at: '2026-11-01 04:30:00' }] },
  { visitor: 33, events: [{ at: '2026-11-01 05:30:00' }] },
  { visitor: 41, events: [{ at: '2026-03-28 21:30:00' }] },
  { visitor: 42, events: [{ at: '2026-03-28 22:30:00' }] },
];

const LIVE = 41;
const IMPORTED = 42;

describe.each([
  { data: 'live', siteId: LIVE },
  { data: 'imported', siteId: IMPORTED },
])('counting rules on $data rows (chDB)', ({ siteId }) => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const site: ReportSite = { siteId, timezone: 'UTC', weekStart: 1, goals: [], nowMs: Date.parse('2026-12-01T12:00:00Z') };
  const ask = async (body: Record<string, unknown>, timezone = 'UTC') =>
    runQuery({ events, geo: intlGeoLabels }, parseQueryRequest(body), { ...site, timezone });
  const rowsOf = async (body: Record<string, unknown>) => (await ask(body)).results.map((r) => [Object.values(r.dimensions!)[0], r.metrics]);
  const host = (operator: string, value: string) => [{ field: 'hostname', operator, values: [value] }];
  const EXITS = ['2026-06-02', '2026-06-02'];
  const HOSTS = ['2026-06-03', '2026-06-03'];

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'counting_rules' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(
      events,
      visits.map((v) => ({ ...v, importId: siteId === IMPORTED ? 9 : 0 })),
      { siteId },
    );
    // the other kind on another site: never counted here
    await seedVisits(
      events,
      visits.map((v) => ({ ...v, importId: siteId === IMPORTED ? 0 : 9 })),
      { siteId: siteId === LIVE ? IMPORTED : LIVE, firstSessionId: 1000 },
    );
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  it('a breakdown without visitors orders by its first metric desc, then value asc, and pages in that order', async () => {
    expect(await rowsOf({ metrics: ['exit_rate'], dimensions: ['visit:exit_page'], date_range: EXITS })).toEqual([
      ['/b', { exit_rate: 100 }],
      ['/d', { exit_rate: 100 }],
      ['/a', { exit_rate: 66.7 }],
    ]);
    const page2 = await ask({ metrics: ['exit_rate', 'visits'], dimensions: ['visit:exit_page'], date_range: EXITS, limit: 1, offset: 1 });
    expect(page2.results.map((r) => [r.dimensions!['visit:exit_page'], r.metrics])).toEqual([['/d', { exit_rate: 100, visits: 1 }]]);
    expect(page2.meta).toEqual({ total: 3, limit: 1, offset: 1, has_more: true });
    const page3 = await ask({ metrics: ['exit_rate'], dimensions: ['visit:exit_page'], date_range: EXITS, limit: 1, offset: 2 });
    expect([page3.results[0]!.dimensions, page3.meta?.has_more]).toEqual([{ 'visit:exit_page': '/a' }, false]);
    // visits first: visits desc (/a and /b 2 each, by value), then /d
    expect(await rowsOf({ metrics: ['visits', 'exit_rate'], dimensions: ['visit:exit_page'], date_range: EXITS })).toEqual([
      ['/a', { visits: 2, exit_rate: 66.7 }],
      ['/b', { visits: 2, exit_rate: 100 }],
      ['/d', { visits: 1, exit_rate: 100 }],
    ]);
    // compared per row: each row's previous exit rate (none the day before)
    const compared = await ask({ metrics: ['exit_rate'], dimensions: ['visit:exit_page'], date_range: EXITS, compare: 'previous_period', limit: 1 });
    expect(compared.results).toEqual([
      { dimensions: { 'visit:exit_page': '/b' }, metrics: { exit_rate: 100 }, comparison: { metrics: { exit_rate: null }, change: { exit_rate: null } } },
    ]);
  });

  it("exit_rate counts the page's pageviews whatever exit_page filter applies", async () => {
    const exitFilter = (operator: string, values: string[]) => ({
      metrics: ['visits', 'exit_rate'],
      dimensions: ['visit:exit_page'],
      date_range: EXITS,
      filters: [{ field: 'exit_page', operator, values }],
    });
    // /a: 2 exits over its 3 pageviews, not over the 2 pageviews of the sessions that left from it
    expect(await rowsOf(exitFilter('is', ['/a']))).toEqual([['/a', { visits: 2, exit_rate: 66.7 }]]);
    expect(await rowsOf({ ...exitFilter('is', ['/a']), metrics: ['exit_rate'] })).toEqual([['/a', { exit_rate: 66.7 }]]);
    expect(await rowsOf(exitFilter('contains', ['a', 'b']))).toEqual([
      ['/a', { visits: 2, exit_rate: 66.7 }],
      ['/b', { visits: 2, exit_rate: 100 }],
    ]);
    // every other filter still applies to the pageviews
    const withSource = (source: string) =>
      rowsOf({ ...exitFilter('is', ['/a']), filters: [...exitFilter('is', ['/a']).filters, { field: 'source', operator: 'is', values: [source] }] });
    expect(await withSource('Direct / None')).toEqual([['/a', { visits: 2, exit_rate: 66.7 }]]);
    expect(await withSource('Google')).toEqual([]);
  });

  it('a hostname filter keeps the visits that entered on it for acquisition and entry page breakdowns', async () => {
    const by = (dimension: string, operator: string, value: string, metrics = ['visitors']) =>
      rowsOf({ metrics, dimensions: [dimension], date_range: HOSTS, filters: host(operator, value) });
    expect(await by('visit:source', 'is', 'a.com')).toEqual([['Google', { visitors: 1 }]]); // H1 only (H3 entered on b.com)
    expect(await by('visit:source', 'is', 'b.com')).toEqual([
      ['Bing', { visitors: 1 }],
      ['Google', { visitors: 1 }],
    ]); // H3, H2
    expect(await by('visit:channel', 'is', 'a.com')).toEqual([['Direct', { visitors: 1 }]]);
    expect(await by('visit:referrer', 'contains', 'a.c')).toEqual([['Direct / None', { visitors: 1 }]]);
    expect(await by('visit:utm_source', 'is_not', 'a.com')).toEqual([
      ['b', { visitors: 1 }],
      ['g', { visitors: 1 }],
    ]); // H3, H2
    expect(await by('visit:entry_page', 'is', 'a.com', ['visitors', 'visits', 'visit_duration'])).toEqual([
      ['/x', { visitors: 1, visits: 1, visit_duration: 60 }],
    ]);
  });

  it('a hostname filter keeps the visits that left from it for the exit page breakdown', async () => {
    const exits = (value: string) =>
      rowsOf({ metrics: ['visitors', 'visits', 'exit_rate'], dimensions: ['visit:exit_page'], date_range: HOSTS, filters: host('is', value) });
    // H3 left from a.com /x; /x's pageviews on a.com: H1's and H3's
    expect(await exits('a.com')).toEqual([['/x', { visitors: 1, visits: 1, exit_rate: 50 }]]);
    // H1 and H2 left from b.com /y, its only 2 pageviews
    expect(await exits('b.com')).toEqual([['/y', { visitors: 2, visits: 2, exit_rate: 100 }]]);
  });

  it('event:hostname groups each event by its own hostname: a visit across two counts under both', async () => {
    const metrics = ['visitors', 'visits', 'pageviews', 'visit_duration', 'bounce_rate', 'views_per_visit'];
    // a.com: H1, H3 (60 s, 120 s); b.com: H1, H2 (a bounce), H3
    expect(await rowsOf({ metrics, dimensions: ['event:hostname'], date_range: HOSTS })).toEqual([
      ['b.com', { visitors: 3, visits: 3, pageviews: 3, visit_duration: 60, bounce_rate: 33, views_per_visit: 1 }],
      ['a.com', { visitors: 2, visits: 2, pageviews: 2, visit_duration: 90, bounce_rate: 0, views_per_visit: 1 }],
    ]);
    expect(await rowsOf({ metrics: ['visits'], dimensions: ['event:hostname'], date_range: HOSTS, filters: host('is', 'a.com') })).toEqual([
      ['a.com', { visits: 2 }],
    ]);
    expect(
      await rowsOf({
        metrics: ['visitors'],
        dimensions: ['event:hostname'],
        date_range: HOSTS,
        filters: [{ field: 'source', operator: 'is', values: ['Google'] }],
      }),
    ).toEqual([
      ['b.com', { visitors: 2 }],
      ['a.com', { visitors: 1 }],
    ]);
    const paged = await ask({ metrics: ['pageviews'], dimensions: ['event:hostname'], date_range: HOSTS, limit: 1, offset: 1, compare: 'previous_period' });
    expect(paged.results).toEqual([
      { dimensions: { 'event:hostname': 'a.com' }, metrics: { pageviews: 2 }, comparison: { metrics: { pageviews: 0 }, change: { pageviews: null } } },
    ]);
    expect(paged.meta).toEqual({ total: 2, limit: 1, offset: 1, has_more: false });
  });

  it('a day starts at its first local instant around DST changes at midnight', async () => {
    const visitors = async (day: string, timezone: string) =>
      (await ask({ metrics: ['visitors', 'pageviews'], date_range: [day, day] }, timezone)).results[0]!.metrics;
    // Santiago: the repeated 23:00 hour belongs to 04-04; 04-05 starts at its only midnight
    expect(await visitors('2026-04-04', 'America/Santiago')).toEqual({ visitors: 2, pageviews: 2 });
    expect(await visitors('2026-04-05', 'America/Santiago')).toEqual({ visitors: 1, pageviews: 1 });
    // Havana: 11-01 starts at the first of its two midnights
    expect(await visitors('2026-10-31', 'America/Havana')).toEqual({ visitors: 1, pageviews: 1 });
    expect(await visitors('2026-11-01', 'America/Havana')).toEqual({ visitors: 2, pageviews: 2 });
    // Beirut: midnight is skipped; 03-29 starts at 01:00
    expect(await visitors('2026-03-28', 'Asia/Beirut')).toEqual({ visitors: 1, pageviews: 1 });
    expect(await visitors('2026-03-29', 'Asia/Beirut')).toEqual({ visitors: 1, pageviews: 1 });
    const days = await ask({ metrics: ['visitors'], dimensions: ['time:day'], date_range: ['2026-04-04', '2026-04-05'] }, 'America/Santiago');
    expect(days.results.map((r) => [r.dimensions!['time:day'], r.metrics.visitors])).toEqual([
      ['2026-04-04', 2],
      ['2026-04-05', 1],
    ]);
    // 04-04 has 25 hours, two labelled 23:00
    const hours = await ask({ metrics: ['visitors'], dimensions: ['time:hour'], date_range: ['2026-04-04', '2026-04-04'] }, 'America/Santiago');
    expect(hours.results).toHaveLength(25);
    expect(hours.results.slice(-2).map((r) => [r.dimensions!['time:hour'], r.metrics.visitors])).toEqual([
      ['2026-04-04 23:00', 1],
      ['2026-04-04 23:00', 1],
    ]);
  });
});
