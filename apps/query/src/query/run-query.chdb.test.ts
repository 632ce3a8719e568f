import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { buildSeedRows, seedVisits, type SeedVisit } from '@sightline/events-schema/testing';
import { parseQueryRequest } from '@sightline/query-contract';
import { expectApiError, makeTempDir } from '@sightline/testkit';
import { intlGeoLabels } from '../geo-labels.js';
import { runQuery } from './run-query.js';
import type { ReportSite } from './report-site.js';

// The events tables are ingest's; their DDL is read as a file (no import of the app).
const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ingest/clickhouse');

/*
 * Site 1 (UTC), week of 2026-06-01 (a Monday). Hand-computed facts:
 *   s1 V1 06-01 10:00 pv /  (status 200), 10:02 pv /blog/a, 10:03 engagement /blog/a 30 s scroll 80, 10:05 Signup{plan:pro} on /blog/a
 *      → 2 pageviews, 3 events, not bounced, 300 s, entry /, exit /blog/a; Direct, DE/DE-BE/Berlin, Chrome Desktop
 *   s2 V2 06-01 11:00 pv / (status 404) → bounce, 0 s; Google, FR, Firefox Mobile
 *   s3 V3 06-03 09:00 pv /blog/b, 09:01 engagement 10 s scroll 40 → bounce (engagement never un-bounces), 0 s; Google, DE/DE-BY, Chrome Desktop
 *   s4 V1 06-05 15:00 pv /pricing, 15:10 Signup (no plan) on /pricing, 15:20 pv / → 1200 s, entry /pricing, exit /;
 *      source `Newsletter, "weekly"`, utm_campaign `a%b_c\d`, DE/DE-BE, Chrome Desktop
 *   s5 V4 06-08 10:05:10 pv / → bounce; Google, US, Safari Mobile
 *   s6 V5 2026-05-20 pv / imported (import_id 7)
 * Site 2: noise the queries of site 1 must never see. Site 3: a session across midnight.
 */
const visits: SeedVisit[] = [
  {
    visitor: 1,
    attrs: { country: 'DE', region: 'DE-BE', city: 2950159, browser: 'Chrome', os: 'Mac', device: 'Desktop' },
    events: [
      { at: '2026-06-01 10:00:00', path: '/', status: 200 },
      { at: '2026-06-01 10:02:00', path: '/blog/a' },
      { at: '2026-06-01 10:03:00', name: 'engagement', path: '/blog/a', engagementMs: 30_000, scroll: 80 },
      { at: '2026-06-01 10:05:00', name: 'Signup', path: '/blog/a', props: { plan: 'pro' } },
    ],
  },
  {
    visitor: 2,
    attrs: { source: 'Google', channel: 'Organic Search', country: 'FR', browser: 'Firefox', device: 'Mobile' },
    events: [{ at: '2026-06-01 11:00:00', path: '/', status: 404 }],
  },
  {
    visitor: 3,
    attrs: { source: 'Google', channel: 'Organic Search', country: 'DE', region: 'DE-BY', browser: 'Chrome', device: 'Desktop' },
    events: [
      { at: '2026-06-03 09:00:00', path: '/blog/b' },
      { at: '2026-06-03 09:01:00', name: 'engagement', path: '/blog/b', engagementMs: 10_000, scroll: 40 },
    ],
  },
  {
    visitor: 1,
    attrs: { source: 'Newsletter, "weekly"', utm_campaign: 'a%b_c\\d', country: 'DE', region: 'DE-BE', city: 2950159, browser: 'Chrome', device: 'Desktop' },
    events: [
      { at: '2026-06-05 15:00:00', path: '/pricing' },
      { at: '2026-06-05 15:10:00', name: 'Signup', path: '/pricing' },
      { at: '2026-06-05 15:20:00', path: '/' },
    ],
  },
  { visitor: 4, attrs: { source: 'Google', country: 'US', browser: 'Safari', device: 'Mobile' }, events: [{ at: '2026-06-08 10:05:10', path: '/' }] },
  { visitor: 5, importId: 7, events: [{ at: '2026-05-20 12:00:00', path: '/' }] },
  { visitor: 1, site: 2, events: [{ at: '2026-06-01 10:00:00' }, { at: '2026-06-01 10:01:00', name: 'Signup' }] },
  {
    visitor: 9,
    site: 3,
    events: [
      { at: '2026-05-31 23:50:00', path: '/' },
      { at: '2026-06-01 00:10:00', path: '/next' },
    ],
  },
];

const berlinVisits: SeedVisit[] = [
  { visitor: 11, site: 4, events: [{ at: '2026-03-29 00:30:00' }] }, // 01:30 CET
  { visitor: 12, site: 4, events: [{ at: '2026-03-29 01:30:00' }] }, // 03:30 CEST
  { visitor: 13, site: 4, events: [{ at: '2026-10-24 22:30:00' }] }, // 10-25 00:30 CEST
  { visitor: 14, site: 4, events: [{ at: '2026-10-25 00:30:00' }] }, // 02:30 CEST
  { visitor: 15, site: 4, events: [{ at: '2026-10-25 01:30:00' }] }, // 02:30 CET (the repeated hour)
];

const goals = [
  { displayName: 'Signup', eventName: 'Signup' },
  { displayName: 'Blog', pagePath: '/blog/*' },
  { displayName: 'Never', eventName: 'Never' },
];
const site: ReportSite = { siteId: 1, timezone: 'UTC', weekStart: 1, goals, nowMs: Date.parse('2026-06-10T12:00:00Z') };
const WEEK = ['2026-06-01', '2026-06-07'];

// every hand-computed answer through the hourly roll-ups where they apply (rollup-sql.ts), and through today's statements alone
describe.each([{ rollups: true }, { rollups: false }])('POST /query on chDB (roll-ups: $rollups)', ({ rollups }) => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const ask = async (body: Record<string, unknown>, context: Partial<ReportSite> = {}) =>
    runQuery({ events, geo: intlGeoLabels, rollups }, parseQueryRequest({ date_range: WEEK, ...body }), { ...site, ...context });
  const metricsOf = async (body: Record<string, unknown>, context: Partial<ReportSite> = {}) => (await ask(body, context)).results.map((r) => r.metrics);
  const rowsOf = async (body: Record<string, unknown>, context: Partial<ReportSite> = {}) =>
    (await ask(body, context)).results.map((r) => [Object.values(r.dimensions!)[0], r.metrics]);

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'query_test' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(events, visits, { siteId: 1 });
    await seedVisits(events, berlinVisits, { siteId: 4, firstSessionId: 100 });
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  const ALL = ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit', 'engagement_time'];

  it('aggregate: every metric, one row without dimensions, the window echoed', async () => {
    const answer = await ask({ metrics: ALL });
    expect(answer.results).toEqual([
      { metrics: { visitors: 3, pageviews: 6, visits: 4, visit_duration: 375, bounce_rate: 50, views_per_visit: 1.5, engagement_time: 10 } },
    ]);
    expect(answer.query).toEqual({ site_id: 1, metrics: ALL, dimensions: [], filters: [], date_range: WEEK });
    expect(answer.has_import).toBe(false);
    expect(answer.meta).toBeUndefined();
  });

  it('aggregate of an empty window: zeros, null averages', async () => {
    expect(await metricsOf({ metrics: ALL, date_range: ['2025-01-01', '2025-01-07'] })).toEqual([
      { visitors: 0, pageviews: 0, visits: 0, visit_duration: null, bounce_rate: 0, views_per_visit: 0, engagement_time: null },
    ]);
  });

  it('Nd and month windows end today in the site timezone', async () => {
    const sevenDays = await ask({ metrics: ['visitors'], date_range: '7d' });
    expect(sevenDays.query.date_range).toEqual(['2026-06-04', '2026-06-10']);
    expect(sevenDays.results[0]!.metrics).toEqual({ visitors: 2 }); // V1 (06-05), V4 (06-08)
    expect((await ask({ metrics: ['visitors'], date_range: 'month' })).results[0]!.metrics).toEqual({ visitors: 4 });
  });

  it('sessions overlapping the window count for session metrics', async () => {
    expect(
      await metricsOf({ metrics: ['visitors', 'pageviews', 'visits', 'views_per_visit'], date_range: ['2026-06-01', '2026-06-01'] }, { siteId: 3 }),
    ).toEqual([{ visitors: 1, pageviews: 1, visits: 1, views_per_visit: 2 }]);
    expect(await metricsOf({ metrics: ['visits'], date_range: ['2026-05-30', '2026-05-30'] }, { siteId: 3 })).toEqual([{ visits: 0 }]);
  });

  it('has_import when imported rows fall in the window', async () => {
    expect((await ask({ metrics: ['visitors'], date_range: ['2026-05-20', '2026-05-20'] })).has_import).toBe(true);
  });

  it('time series by day: every bucket oldest first, zero-filled, null averages', async () => {
    const rows = await rowsOf({ metrics: ['visitors', 'pageviews', 'visits', 'bounce_rate', 'visit_duration'], dimensions: ['time'] });
    const empty = { visitors: 0, pageviews: 0, visits: 0, bounce_rate: 0, visit_duration: null };
    expect(rows).toEqual([
      ['2026-06-01', { visitors: 2, pageviews: 3, visits: 2, bounce_rate: 50, visit_duration: 150 }],
      ['2026-06-02', empty],
      ['2026-06-03', { visitors: 1, pageviews: 1, visits: 1, bounce_rate: 100, visit_duration: 0 }],
      ['2026-06-04', empty],
      ['2026-06-05', { visitors: 1, pageviews: 2, visits: 1, bounce_rate: 0, visit_duration: 1200 }],
      ['2026-06-06', empty],
      ['2026-06-07', empty],
    ]);
  });

  it('time series by week for several week starts', async () => {
    const weeks = (weekStart: number) => rowsOf({ metrics: ['visitors'], dimensions: ['time:week'], date_range: ['2026-06-01', '2026-06-14'] }, { weekStart });
    expect(await weeks(1)).toEqual([
      ['2026-06-01', { visitors: 3 }],
      ['2026-06-08', { visitors: 1 }],
    ]);
    expect(await weeks(0)).toEqual([
      ['2026-06-01', { visitors: 3 }],
      ['2026-06-07', { visitors: 1 }],
      ['2026-06-14', { visitors: 0 }],
    ]);
    expect(await weeks(3)).toEqual([
      ['2026-06-01', { visitors: 2 }],
      ['2026-06-03', { visitors: 3 }],
      ['2026-06-10', { visitors: 0 }],
    ]);
    expect(await weeks(6)).toEqual([
      ['2026-06-01', { visitors: 3 }],
      ['2026-06-06', { visitors: 1 }],
      ['2026-06-13', { visitors: 0 }],
    ]);
  });

  it('time series by month and by hour', async () => {
    expect(await rowsOf({ metrics: ['pageviews'], dimensions: ['time:month'], date_range: ['2026-05-15', '2026-06-14'] })).toEqual([
      ['2026-05-15', { pageviews: 1 }],
      ['2026-06-01', { pageviews: 7 }],
    ]);
    const hours = await rowsOf({ metrics: ['pageviews'], dimensions: ['time:hour'], date_range: ['2026-06-01', '2026-06-01'] });
    expect(hours).toHaveLength(24);
    expect(hours.filter(([, m]) => (m as { pageviews: number }).pageviews > 0)).toEqual([
      ['2026-06-01 10:00', { pageviews: 2 }],
      ['2026-06-01 11:00', { pageviews: 1 }],
    ]);
  });

  it('DST days in Europe/Berlin have 23 and 25 hourly buckets with the events in local hours', async () => {
    const berlin = { siteId: 4, timezone: 'Europe/Berlin' };
    const spring = await rowsOf({ metrics: ['pageviews'], dimensions: ['time:hour'], date_range: ['2026-03-29', '2026-03-29'] }, berlin);
    expect(spring).toHaveLength(23);
    expect(spring.filter(([, m]) => (m as { pageviews: number }).pageviews > 0)).toEqual([
      ['2026-03-29 01:00', { pageviews: 1 }],
      ['2026-03-29 03:00', { pageviews: 1 }],
    ]);
    const autumn = await rowsOf({ metrics: ['pageviews'], dimensions: ['time:hour'], date_range: ['2026-10-25', '2026-10-25'] }, berlin);
    expect(autumn).toHaveLength(25);
    expect(autumn.filter(([, m]) => (m as { pageviews: number }).pageviews > 0)).toEqual([
      ['2026-10-25 00:00', { pageviews: 1 }],
      ['2026-10-25 02:00', { pageviews: 1 }],
      ['2026-10-25 02:00', { pageviews: 1 }],
    ]);
    expect(await rowsOf({ metrics: ['visitors'], dimensions: ['time:day'], date_range: ['2026-10-24', '2026-10-25'] }, berlin)).toEqual([
      ['2026-10-24', { visitors: 0 }],
      ['2026-10-25', { visitors: 3 }],
    ]);
  });

  it('realtime by minute: the last 30 minutes', async () => {
    const answer = await ask({ metrics: ['pageviews'], dimensions: ['time:minute'], date_range: 'realtime' }, { nowMs: Date.parse('2026-06-08T10:20:30Z') });
    expect(answer.results).toHaveLength(31);
    expect(answer.results[0]!.dimensions).toEqual({ 'time:minute': '2026-06-08 09:50' });
    expect(answer.results.filter((r) => r.metrics.pageviews! > 0)).toEqual([{ dimensions: { 'time:minute': '2026-06-08 10:05' }, metrics: { pageviews: 1 } }]);
    await expectApiError(ask({ metrics: ['pageviews'], dimensions: ['time:day'], date_range: 'realtime' }), 'invalid_interval');
  });

  it('breakdown by source: ranking, labels of empty values, meta and pagination edges', async () => {
    const answer = await ask({ metrics: ['visitors', 'visit_duration', 'bounce_rate'], dimensions: ['visit:source'] });
    expect(answer.results).toEqual([
      { dimensions: { 'visit:source': 'Google' }, metrics: { visitors: 2, visit_duration: 0, bounce_rate: 100 } },
      { dimensions: { 'visit:source': 'Direct / None' }, metrics: { visitors: 1, visit_duration: 300, bounce_rate: 0 } },
      { dimensions: { 'visit:source': 'Newsletter, "weekly"' }, metrics: { visitors: 1, visit_duration: 1200, bounce_rate: 0 } },
    ]);
    expect(answer.meta).toEqual({ total: 3, limit: 100, offset: 0, has_more: false });
    const page = (offset: number) => ask({ metrics: ['visitors'], dimensions: ['visit:source'], limit: 1, offset });
    expect((await page(1)).results.map((r) => r.dimensions)).toEqual([{ 'visit:source': 'Direct / None' }]);
    expect((await page(1)).meta).toEqual({ total: 3, limit: 1, offset: 1, has_more: true });
    expect((await page(2)).meta).toEqual({ total: 3, limit: 1, offset: 2, has_more: false });
    expect(await page(3)).toMatchObject({ results: [], meta: { total: 3, limit: 1, offset: 3, has_more: false } });
  });

  it('breakdown of an empty window', async () => {
    expect(await ask({ metrics: ['visitors'], dimensions: ['visit:source'], date_range: ['2025-01-01', '2025-01-02'] })).toMatchObject({
      results: [],
      meta: { total: 0, has_more: false },
    });
  });

  it('breakdowns by page, folder, entry and exit page, hostname', async () => {
    expect(await rowsOf({ metrics: ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'], dimensions: ['event:page'] })).toEqual([
      ['/', { visitors: 2, pageviews: 3, bounce_rate: 50, time_on_page: null, scroll_depth: null }],
      ['/blog/a', { visitors: 1, pageviews: 1, bounce_rate: 0, time_on_page: 30, scroll_depth: 80 }],
      ['/blog/b', { visitors: 1, pageviews: 1, bounce_rate: 100, time_on_page: 10, scroll_depth: 40 }],
      ['/pricing', { visitors: 1, pageviews: 1, bounce_rate: 0, time_on_page: null, scroll_depth: null }],
    ]);
    expect(await rowsOf({ metrics: ['visitors', 'pageviews'], dimensions: ['event:folder'] })).toEqual([
      ['/', { visitors: 2, pageviews: 3 }],
      ['/blog', { visitors: 2, pageviews: 2 }],
      ['/pricing', { visitors: 1, pageviews: 1 }],
    ]);
    expect(await rowsOf({ metrics: ['visitors', 'visits', 'visit_duration'], dimensions: ['visit:entry_page'] })).toEqual([
      ['/', { visitors: 2, visits: 2, visit_duration: 150 }],
      ['/blog/b', { visitors: 1, visits: 1, visit_duration: 0 }],
      ['/pricing', { visitors: 1, visits: 1, visit_duration: 1200 }],
    ]);
    expect(await rowsOf({ metrics: ['visitors', 'visits', 'exit_rate'], dimensions: ['visit:exit_page'] })).toEqual([
      ['/', { visitors: 2, visits: 2, exit_rate: 66.7 }],
      ['/blog/a', { visitors: 1, visits: 1, exit_rate: 100 }],
      ['/blog/b', { visitors: 1, visits: 1, exit_rate: 100 }],
    ]);
    expect(
      await rowsOf({ metrics: ['visitors', 'visits', 'pageviews', 'visit_duration', 'bounce_rate', 'views_per_visit'], dimensions: ['event:hostname'] }),
    ).toEqual([['example.com', { visitors: 3, visits: 4, pageviews: 6, visit_duration: 375, bounce_rate: 50, views_per_visit: 1.5 }]]);
  });

  it('reads uncollapsed session versions: a superseded exit page is no row (site 6)', async () => {
    // One insert collapses +1/−1 pairs on the way in (optimize_on_insert), so each version row
    // goes in alone, with merges stopped: the store then holds all three rows of session 1.
    //   session 1: V21 06-02 10:00 pv /a (v1: exit /a), 10:05 pv /b (v2: exit /b) → exit /b, 300 s, 2 pageviews
    //   session 2: V22 06-02 11:00 pv /b → exit /b, 0 s, bounce
    //   session 3: V21 06-02 12:00 pv /c → exit /c, 0 s, bounce
    //   session 4: V23 06-02 13:00 pv /b (v1: exit /b), 13:01 pv /d → exit /d, 60 s, 2 pageviews
    await events.command('SYSTEM STOP MERGES sessions');
    const rows = buildSeedRows(
      [
        {
          visitor: 21,
          site: 6,
          events: [
            { at: '2026-06-02 10:00:00', path: '/a' },
            { at: '2026-06-02 10:05:00', path: '/b' },
          ],
        },
        { visitor: 22, site: 6, events: [{ at: '2026-06-02 11:00:00', path: '/b' }] },
        { visitor: 21, site: 6, events: [{ at: '2026-06-02 12:00:00', path: '/c' }] },
        {
          visitor: 23,
          site: 6,
          events: [
            { at: '2026-06-02 13:00:00', path: '/b' },
            { at: '2026-06-02 13:01:00', path: '/d' },
          ],
        },
      ],
      { siteId: 6, firstSessionId: 9001 },
    );
    await events.insert('events', rows.events as unknown as Record<string, unknown>[]);
    for (const row of rows.sessions) await events.insert('sessions', [row as unknown as Record<string, unknown>]);
    const [stored] = await events.query<{ n: number }>('SELECT count() AS n FROM sessions WHERE site_id = 6');
    expect(stored!.n).toBe(8); // +1 v1, −1 v1, +1 v2 of sessions 1 and 4; +1 of sessions 2 and 3
    const at6 = { siteId: 6 };
    // sums only: read flat, sign-weighted; (2 + 1 + 1 + 2) / 4 = 1.5 views, (300 + 60) / 4 = 90 s, 2 of 4 bounced
    expect(await rowsOf({ metrics: ['visits'], dimensions: ['visit:exit_page'] }, at6)).toEqual([
      ['/b', { visits: 2 }],
      ['/c', { visits: 1 }],
      ['/d', { visits: 1 }],
    ]);
    expect(await metricsOf({ metrics: ['visits', 'visit_duration', 'bounce_rate', 'views_per_visit'] }, at6)).toEqual([
      { visits: 4, visit_duration: 90, bounce_rate: 50, views_per_visit: 1.5 },
    ]);
    // visitors over a value fixed per session: flat too (V21 counted once over its 4 rows)
    expect(await rowsOf({ metrics: ['visitors', 'visit_duration', 'bounce_rate'], dimensions: ['visit:source'] }, at6)).toEqual([
      ['Direct / None', { visitors: 3, visit_duration: 90, bounce_rate: 50 }],
    ]);
    // visitors over a value that changes between versions: collapsed per session first (V23's old exit /b is not a /b visitor)
    expect(await rowsOf({ metrics: ['visitors', 'visits'], dimensions: ['visit:exit_page'] }, at6)).toEqual([
      ['/b', { visitors: 2, visits: 2 }],
      ['/c', { visitors: 1, visits: 1 }],
      ['/d', { visitors: 1, visits: 1 }],
    ]);
    expect(await rowsOf({ metrics: ['visitors', 'visits'], dimensions: ['visit:entry_page'] }, at6)).toEqual([
      ['/b', { visitors: 2, visits: 2 }],
      ['/a', { visitors: 1, visits: 1 }],
      ['/c', { visitors: 1, visits: 1 }],
    ]);
    // an aggregate's visitors from these sessions (no visit of site 6 starts after the window): V21 once
    expect(await metricsOf({ metrics: ['visitors', 'visits'] }, at6)).toEqual([{ visitors: 3, visits: 4 }]);
    await events.command('SYSTEM START MERGES sessions');
  });

  it('event:page lists a page whose only rows in the window are engagement events only when time on page or scroll is asked (site 7)', async () => {
    // V31 06-01 23:50 pv /x, 06-02 00:05 engagement /x 15 s scroll 60 (same visit: 15 min gap); 06-02 10:00 pv /y
    await seedVisits(
      events,
      [
        {
          visitor: 31,
          site: 7,
          events: [
            { at: '2026-06-01 23:50:00', path: '/x' },
            { at: '2026-06-02 00:05:00', name: 'engagement', path: '/x', engagementMs: 15_000, scroll: 60 },
          ],
        },
        { visitor: 31, site: 7, events: [{ at: '2026-06-02 10:00:00', path: '/y' }] },
      ],
      { siteId: 7, firstSessionId: 9101 },
    );
    const at7 = { siteId: 7 };
    const june2 = ['2026-06-02', '2026-06-02'];
    // counts only: engagement rows are skipped by the sort key, so /x (no pageview, no visitor on 06-02) is no row
    const counted = await ask({ metrics: ['visitors', 'pageviews'], dimensions: ['event:page'], date_range: june2 }, at7);
    expect(counted.results.map((r) => [r.dimensions!['event:page'], r.metrics])).toEqual([['/y', { visitors: 1, pageviews: 1 }]]);
    expect(counted.meta).toEqual({ total: 1, limit: 100, offset: 0, has_more: false });
    expect(await rowsOf({ metrics: ['visitors'], dimensions: ['event:folder'], date_range: june2 }, at7)).toEqual([['/y', { visitors: 1 }]]);
    // time on page and scroll read the engagement rows: /x is listed with them
    expect(await rowsOf({ metrics: ['visitors', 'pageviews', 'time_on_page', 'scroll_depth'], dimensions: ['event:page'], date_range: june2 }, at7)).toEqual([
      ['/y', { visitors: 1, pageviews: 1, time_on_page: null, scroll_depth: null }],
      ['/x', { visitors: 0, pageviews: 0, time_on_page: 15, scroll_depth: 60 }],
    ]);
  });

  it('filters on labelled attributes match the label on the stored empty value, on sessions and on events', async () => {
    const visitsWith = async (range: string[], ...filters: { field: string; operator: string; values: string[] }[]) =>
      (await metricsOf({ metrics: ['visits', 'visitors', 'pageviews'], date_range: range, filters }))[0];
    const may20 = ['2026-05-20', '2026-05-20']; // V5's imported visit, no country
    expect(await visitsWith(may20, { field: 'country', operator: 'is', values: ['(not set)'] })).toEqual({ visits: 1, visitors: 1, pageviews: 1 });
    expect(await visitsWith(may20, { field: 'country', operator: 'is_not', values: ['(not set)'] })).toEqual({ visits: 0, visitors: 0, pageviews: 0 });
    expect(await visitsWith(may20, { field: 'country', operator: 'is_not', values: ['DE'] })).toEqual({ visits: 1, visitors: 1, pageviews: 1 });
    // the labelled value is never '', so '' matches nothing, even on an empty stored value
    expect(await visitsWith(may20, { field: 'country', operator: 'is', values: [''] })).toEqual({ visits: 0, visitors: 0, pageviews: 0 });
    expect(await visitsWith(may20, { field: 'country', operator: 'is_not', values: [''] })).toEqual({ visits: 1, visitors: 1, pageviews: 1 });
    // the week: s1, s3, s4 in DE (5 pageviews), s2 in FR
    expect(await visitsWith(WEEK, { field: 'country', operator: 'is', values: ['DE', '(not set)'] })).toEqual({ visits: 3, visitors: 2, pageviews: 5 });
    expect(await visitsWith(WEEK, { field: 'country', operator: 'is_not', values: ['DE', '(not set)'] })).toEqual({ visits: 1, visitors: 1, pageviews: 1 });
    expect(await visitsWith(WEEK, { field: 'channel', operator: 'is', values: ['Direct'] })).toEqual({ visits: 2, visitors: 1, pageviews: 4 });
    expect(await visitsWith(WEEK, { field: 'device', operator: 'is_not', values: ['Desktop', ''] })).toEqual({ visits: 1, visitors: 1, pageviews: 1 });
  });

  it('an aggregate counts visitors from the overlapping sessions only where they are the same set (sites 8, 9)', async () => {
    // site 9: V41's pageview 06-03 00:10 /a started the visit; a pageview at 06-02 23:55 /b arrived
    // late and joined it (a late event continues its visit whatever its time): the visit starts on
    // 06-03 while one of its events lies on 06-02. Stored as ingest writes it: the rows and the
    // event's day in late_event_days.
    const late = buildSeedRows(
      [
        {
          visitor: 41,
          site: 9,
          events: [
            { at: '2026-06-02 23:55:00', path: '/b' },
            { at: '2026-06-03 00:10:00', path: '/a' },
          ],
        },
      ],
      { siteId: 9, firstSessionId: 9201 },
    );
    const final = late.sessions.at(-1)!;
    await events.insert('late_event_days', [{ site_id: 9, day: '2026-06-02' }]);
    await events.insert('events', late.events as unknown as Record<string, unknown>[]);
    await events.insert('sessions', [
      { ...final, start: '2026-06-03 00:10:00.000', timestamp: '2026-06-03 00:10:00.000', duration: 0, entry_page: '/a', exit_page: '/a' },
    ]);
    const at9 = { siteId: 9 };
    // 06-02: a late event lies in the window, so visitors come from events (1), not from sessions (0)
    expect(await metricsOf({ metrics: ['visitors', 'pageviews', 'visits'], date_range: ['2026-06-02', '2026-06-02'] }, at9)).toEqual([
      { visitors: 1, pageviews: 1, visits: 0 },
    ]);
    expect(await metricsOf({ metrics: ['visitors', 'pageviews', 'visits'], date_range: ['2026-06-03', '2026-06-03'] }, at9)).toEqual([
      { visitors: 1, pageviews: 1, visits: 1 },
    ]);
    // site 1, 06-04..06-10 (visitors from sessions, pageviews alone from pageview rows): s4's Signup is no pageview
    expect(await metricsOf({ metrics: ['visitors', 'pageviews'], date_range: '7d' })).toEqual([{ visitors: 2, pageviews: 3 }]);
    // event:goal's all-visitors total (conversion_rate) follows the same rule: 1 of 1 on 06-02
    expect(
      await rowsOf(
        { metrics: ['visitors', 'conversion_rate'], dimensions: ['event:goal'], date_range: ['2026-06-02', '2026-06-02'] },
        { ...at9, goals: [{ displayName: 'B', pagePath: '/b' }] },
      ),
    ).toEqual([['B', { visitors: 1, conversion_rate: 100 }]]);
    // site 1, month (06-01..06-10; no visit after it): 4 visitors, Blog converted V1 and V3, Signup V1
    expect(await rowsOf({ metrics: ['visitors', 'conversion_rate'], dimensions: ['event:goal'], date_range: 'month' })).toEqual([
      ['Blog', { visitors: 2, conversion_rate: 50 }],
      ['Signup', { visitors: 1, conversion_rate: 25 }],
    ]);
    // site 8, realtime (under 31 minutes): V42's visit overlaps 09:50–10:20:30 with events just
    // before and after it (30 min 50 s apart, one visit) — no event in the window, so no visitor
    await seedVisits(events, [{ visitor: 42, site: 8, events: [{ at: '2026-06-08 09:49:50' }, { at: '2026-06-08 10:20:40' }] }], {
      siteId: 8,
      firstSessionId: 9301,
    });
    expect(await metricsOf({ metrics: ['visitors', 'visits'], date_range: 'realtime' }, { siteId: 8, nowMs: Date.parse('2026-06-08T10:20:30Z') })).toEqual([
      { visitors: 0, visits: 1 },
    ]);
    expect(await metricsOf({ metrics: ['visitors', 'visits'], date_range: ['2026-06-08', '2026-06-08'] }, { siteId: 8 })).toEqual([{ visitors: 1, visits: 1 }]);
  });

  it("reads a past or compare window's visitors from sessions unless a late event lies in its days", async () => {
    // which table each statement reads: the answer is the same either way by design
    const statements: Array<{ sql: string; start: string }> = [];
    const recording = new Proxy(events, {
      get: (target, key) =>
        key === 'query'
          ? (sql: string, params?: Record<string, unknown>) => (statements.push({ sql, start: String(params?.start) }), target.query(sql, params))
          : Reflect.get(target, key, target),
    });
    // the two windows run side by side: the current window (the later start) first
    const visitorsSql = () =>
      statements
        .filter(({ sql }) => /uniqExact/.test(sql))
        .sort((a, b) => b.start.localeCompare(a.start))
        .map(({ sql }) => (/FROM sessions/.test(sql) ? 'sessions' : 'events'));
    const answer = await runQuery(
      { events: recording, geo: intlGeoLabels, rollups: false },
      parseQueryRequest({ metrics: ['visitors', 'visits'], date_range: ['2026-06-01', '2026-06-07'], compare: 'previous_period' }),
      site,
    );
    // site 1: 06-01..06-07 V1, V2 and V3; 05-25..05-31 nobody (V5's import is on 05-20)
    expect(answer.results[0]!.metrics.visitors).toBe(3);
    expect(answer.results[0]!.comparison!.metrics.visitors).toBe(0);
    // both windows end before site 1's latest visit (06-08): before late_event_days, both counted events
    expect(visitorsSql()).toEqual(['sessions', 'sessions']);
    expect(statements.filter(({ sql }) => sql.includes('late_event_days'))).toHaveLength(2);
    // a late event's day inside the previous window: that window counts events again, the other not
    statements.length = 0;
    await events.insert('late_event_days', [{ site_id: 1, day: '2026-05-28' }]);
    const again = await runQuery(
      { events: recording, geo: intlGeoLabels, rollups: false },
      parseQueryRequest({ metrics: ['visitors', 'visits'], date_range: ['2026-06-01', '2026-06-07'], compare: 'previous_period' }),
      site,
    );
    expect(again.results).toEqual(answer.results);
    expect(visitorsSql()).toEqual(['sessions', 'events']);
    await events.command('DELETE FROM late_event_days WHERE site_id = 1');
  });

  it('exit pages without visitors (flat sums) and compared per row (restricted parts)', async () => {
    // s4's exit page was /pricing in its first two versions, / in its last; s1's was / then /blog/a
    // (collapsed on insert here; the uncollapsed case is site 6 above).
    const exits = await ask({ metrics: ['visits', 'exit_rate'], dimensions: ['visit:exit_page'] });
    expect(exits.results.map((r) => [r.dimensions!['visit:exit_page'], r.metrics])).toEqual([
      ['/', { visits: 2, exit_rate: 66.7 }],
      ['/blog/a', { visits: 1, exit_rate: 100 }],
      ['/blog/b', { visits: 1, exit_rate: 100 }],
    ]);
    expect(exits.meta).toEqual({ total: 3, limit: 100, offset: 0, has_more: false });
    // compare restricts the previous window to the current rows' values (pushed into the row filter):
    // 06-08..06-14 has s5 exiting on /; the week before, s2 and s4 exited on /
    const compared = await ask({ metrics: ['visits'], dimensions: ['visit:exit_page'], date_range: ['2026-06-08', '2026-06-14'], compare: 'previous_period' });
    expect(compared.results).toEqual([
      { dimensions: { 'visit:exit_page': '/' }, metrics: { visits: 1 }, comparison: { metrics: { visits: 2 }, change: { visits: -50 } } },
    ]);
  });

  it('breakdowns by status code (strings), event name, property and goal', async () => {
    expect(await rowsOf({ metrics: ['pageviews'], dimensions: ['event:status_code'] })).toEqual([
      ['200', { pageviews: 1 }],
      ['404', { pageviews: 1 }],
    ]);
    expect(await rowsOf({ metrics: ['visitors', 'events'], dimensions: ['event:name'] })).toEqual([['Signup', { visitors: 1, events: 2 }]]);
    expect(
      await rowsOf({ metrics: ['visitors', 'events'], dimensions: ['event:props:plan'], filters: [{ field: 'event', operator: 'is', values: ['Signup'] }] }),
    ).toEqual([
      ['(none)', { visitors: 1, events: 1 }],
      ['pro', { visitors: 1, events: 1 }],
    ]);
    expect(await rowsOf({ metrics: ['visitors', 'events', 'conversion_rate'], dimensions: ['event:goal'] })).toEqual([
      ['Blog', { visitors: 2, events: 2, conversion_rate: 66.67 }],
      ['Signup', { visitors: 1, events: 2, conversion_rate: 33.33 }],
    ]);
  });

  it('geo breakdowns carry labels keyed like the dimension', async () => {
    expect((await ask({ metrics: ['visitors'], dimensions: ['visit:country'] })).results).toEqual([
      { dimensions: { 'visit:country': 'DE' }, labels: { 'visit:country': 'Germany' }, metrics: { visitors: 2 } },
      { dimensions: { 'visit:country': 'FR' }, labels: { 'visit:country': 'France' }, metrics: { visitors: 1 } },
    ]);
    expect((await ask({ metrics: ['visitors'], dimensions: ['visit:region'] })).results.map((r) => [r.dimensions, r.labels])).toEqual([
      // one visitor each: ordered by value; '(' sorts before letters
      [{ 'visit:region': '(not set)' }, { 'visit:region': '(not set)' }],
      [{ 'visit:region': 'DE-BE' }, { 'visit:region': 'DE-BE' }],
      [{ 'visit:region': 'DE-BY' }, { 'visit:region': 'DE-BY' }],
    ]);
    expect((await ask({ metrics: ['visitors'], dimensions: ['visit:browser'] })).results[0]!.labels).toBeUndefined();
  });

  it('filters: visit-level values are literal, OR within values, AND across filters', async () => {
    const visitsWith = async (...filters: { field: string; operator: string; values: string[] }[]) =>
      (await metricsOf({ metrics: ['visits', 'visitors'], filters }))[0];
    expect(await visitsWith({ field: 'source', operator: 'is', values: ['Newsletter, "weekly"'] })).toEqual({ visits: 1, visitors: 1 });
    expect(await visitsWith({ field: 'source', operator: 'contains', values: [', "week'] })).toEqual({ visits: 1, visitors: 1 });
    expect(await visitsWith({ field: 'utm_campaign', operator: 'is', values: ['a%b_c\\d'] })).toEqual({ visits: 1, visitors: 1 });
    expect(await visitsWith({ field: 'utm_campaign', operator: 'contains', values: ['%b_'] })).toEqual({ visits: 1, visitors: 1 });
    expect(await visitsWith({ field: 'utm_campaign', operator: 'contains', values: ['a_b'] })).toEqual({ visits: 0, visitors: 0 });
    expect(await visitsWith({ field: 'source', operator: 'is_not', values: ['Google'] })).toEqual({ visits: 2, visitors: 1 });
    expect(await visitsWith({ field: 'source', operator: 'is', values: ['Google', 'Direct / None'] })).toEqual({ visits: 3, visitors: 3 });
    expect(await visitsWith({ field: 'source', operator: 'does_not_contain', values: ['oo', 'News'] })).toEqual({ visits: 1, visitors: 1 });
    expect(await visitsWith({ field: 'country', operator: 'is', values: ['DE'] }, { field: 'device', operator: 'is', values: ['Desktop'] })).toEqual({
      visits: 3,
      visitors: 2,
    });
    expect(await visitsWith({ field: 'country', operator: 'is', values: ['DE'] }, { field: 'browser', operator: 'is', values: ['Firefox'] })).toEqual({
      visits: 0,
      visitors: 0,
    });
    expect(await visitsWith({ field: 'city', operator: 'is', values: ['2950159'] })).toEqual({ visits: 2, visitors: 1 });
    expect(await visitsWith({ field: 'entry_page', operator: 'is', values: ['/pricing'] })).toEqual({ visits: 1, visitors: 1 });
    expect(await visitsWith({ field: 'exit_page', operator: 'is', values: ['/'] })).toEqual({ visits: 2, visitors: 2 });
  });

  it('filters: event-level fields keep whole sessions for session metrics', async () => {
    const pageBlogA = [{ field: 'page', operator: 'is', values: ['/blog/a'] }];
    expect(await metricsOf({ metrics: ['visitors', 'pageviews', 'visits', 'bounce_rate'], filters: pageBlogA })).toEqual([
      { visitors: 1, pageviews: 1, visits: 1, bounce_rate: 0 },
    ]);
    // bounce_rate with a page filter: only sessions that entered on a matching page (s1 no, s2 yes)
    expect(await metricsOf({ metrics: ['visits', 'bounce_rate'], filters: [{ field: 'page', operator: 'is', values: ['/'] }] })).toEqual([
      { visits: 3, bounce_rate: 50 },
    ]);
    expect(await metricsOf({ metrics: ['visits'], filters: [{ field: 'code', operator: 'is', values: ['404'] }] })).toEqual([{ visits: 1 }]);
    expect(
      await metricsOf({ metrics: ['visitors', 'pageviews', 'visits', 'bounce_rate'], filters: [{ field: 'event', operator: 'is', values: ['Signup'] }] }),
    ).toEqual([{ visitors: 1, pageviews: 4, visits: 2, bounce_rate: 0 }]);
    expect(await metricsOf({ metrics: ['visits'], filters: [{ field: 'hostname', operator: 'is_not', values: ['example.com'] }] })).toEqual([{ visits: 0 }]);
  });

  it('compare: aggregate, time series (by position) and breakdown (per row); none for status codes and goals', async () => {
    const next = ['2026-06-08', '2026-06-14'];
    const aggregate = await ask({ metrics: ['visitors', 'bounce_rate', 'visit_duration'], date_range: next, compare: 'previous_period' });
    expect(aggregate.query.compare).toEqual(WEEK);
    expect(aggregate.results[0]).toEqual({
      metrics: { visitors: 1, bounce_rate: 100, visit_duration: 0 },
      comparison: { metrics: { visitors: 3, bounce_rate: 50, visit_duration: 375 }, change: { visitors: -67, bounce_rate: 50, visit_duration: -100 } },
    });
    const series = await ask({
      metrics: ['visitors'],
      dimensions: ['time:day'],
      date_range: ['2026-06-08', '2026-06-09'],
      compare: ['2026-06-01', '2026-06-02'],
    });
    expect(series.results.map((r) => r.comparison)).toEqual([
      { metrics: { visitors: 2 }, change: { visitors: -50 } },
      { metrics: { visitors: 0 }, change: { visitors: null } },
    ]);
    const breakdown = await ask({ metrics: ['visitors'], dimensions: ['visit:source'], date_range: next, compare: 'previous_period' });
    expect(breakdown.results).toEqual([
      { dimensions: { 'visit:source': 'Google' }, metrics: { visitors: 1 }, comparison: { metrics: { visitors: 2 }, change: { visitors: -50 } } },
    ]);
    for (const dimension of ['event:status_code', 'event:goal']) {
      const answer = await ask({ metrics: [dimension === 'event:goal' ? 'visitors' : 'pageviews'], dimensions: [dimension], compare: 'previous_period' });
      expect(answer.results.length).toBeGreaterThan(0);
      for (const row of answer.results) expect(row).not.toHaveProperty('comparison');
    }
    await expectApiError(ask({ metrics: ['visitors'], compare: ['2026-05-01', '2026-05-03'] }), 'compare_length_mismatch');
    await expectApiError(ask({ metrics: ['visitors'], compare: 'last_year' }), 'invalid_compare');
  });

  it('site 2’s rows never leak into site 1', async () => {
    expect(await metricsOf({ metrics: ['visitors', 'pageviews'], date_range: ['2026-06-01', '2026-06-01'] }, { siteId: 2 })).toEqual([
      { visitors: 1, pageviews: 1 },
    ]);
  });
});
