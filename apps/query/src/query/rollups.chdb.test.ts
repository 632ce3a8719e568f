import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEventsRetention, ChdbEventStore, deleteRows, runEventMigrations, type EventStore } from '@sightline/event-store';
import { EVENTS_TABLE, ROLLUP_TABLES, SESSIONS_TABLE } from '@sightline/events-schema';
import { seedVisits, type SeedEvent, type SeedVisit } from '@sightline/events-schema/testing';
import { parseQueryRequest } from '@sightline/query-contract';
import { expectApiError, makeTempDir, seededRandom as prng } from '@sightline/testkit';
import { intlGeoLabels } from '../geo-labels.js';
import { runQuery } from './run-query.js';
import type { ReportSite } from './report-site.js';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ingest/clickhouse');

const DAY_MS = 86_400_000;
const FIRST_MS = Date.parse('2026-03-01T00:00:00Z');
const SPAN_DAYS = 75; // across both 2026 DST changes of Europe/Berlin and America/New_York
const at = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/**
 * Random visits of sites 1–3: visitors from a small pool (so they return across hours
 * and days), 1–14 events 10 s – 29 min apart (visits crossing hours and midnights, some
 * many hours long), engagement and custom events, every fifth visit imported (import 1
 * or 2), and a few late events older than their visit's start.
 */
function randomVisits(random: () => number, count: number): SeedVisit[] {
  const visits: SeedVisit[] = [];
  for (let i = 0; i < count; i += 1) {
    const long = random() < 0.05;
    const n = long ? 20 + Math.floor(random() * 20) : 1 + Math.floor(random() * 14 * random());
    let t = FIRST_MS + Math.floor(random() * SPAN_DAYS * DAY_MS);
    const events: SeedEvent[] = [];
    for (let e = 0; e < n; e += 1) {
      const r = random();
      events.push(
        r < 0.25
          ? { at: at(t), name: 'engagement', path: `/p${e % 3}`, engagementMs: Math.floor(random() * 60_000) }
          : r < 0.32
            ? { at: at(t), name: 'Signup' }
            : { at: at(t), path: `/p${Math.floor(random() * 5)}` },
      );
      t += 10_000 + Math.floor(random() * (long ? 29 : 12) * 60_000);
    }
    // a late event: older than the visit's first, arriving last
    if (random() < 0.04) events.push({ at: at(Date.parse(`${events[0]!.at.replace(' ', 'T')}Z`) - Math.floor(random() * 3 * 3_600_000)), path: '/late' });
    const site = 1 + Math.floor(random() * random() * 3);
    const one = (values: readonly string[]) => values[Math.floor(random() * random() * values.length)]!;
    const attrs = {
      country: one(['DE', 'US', '', 'FR']),
      source: one(['', 'Google', 'Bing', 'Newsletter']),
      channel: one(['Direct', 'Organic Search', 'Email']),
      browser: one(['Chrome', 'Firefox', '']),
      os: one(['Mac', 'Windows']),
      device: one(['Desktop', 'Mobile', 'Tablet']),
    };
    visits.push({ visitor: 1 + Math.floor(random() * 120), site, attrs, ...(i % 5 === 4 ? { importId: 1 + (i % 2) } : {}), events });
  }
  return visits;
}

const METRICS = ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit', 'engagement_time'];
const TIMEZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];

function randomQuery(random: () => number): { body: Record<string, unknown>; site: ReportSite } {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const metrics = METRICS.filter(() => random() < 0.5);
  if (metrics.length === 0) metrics.push(pick(METRICS));
  const timezone = pick(TIMEZONES);
  const nowMs = FIRST_MS + Math.floor(random() * (SPAN_DAYS + 10) * DAY_MS);
  const days = 1 + Math.floor(random() * 40);
  const start = FIRST_MS - 5 * DAY_MS + Math.floor(random() * (SPAN_DAYS + 5) * DAY_MS);
  const range = random() < 0.3 ? pick(['7d', '30d', 'month', '1d']) : [at(start).slice(0, 10), at(start + (days - 1) * DAY_MS).slice(0, 10)];
  const body: Record<string, unknown> = { metrics, date_range: range };
  const shape = random();
  if (shape < 0.3) {
    // a visit-attribute breakdown (region is not rolled up: today's statements)
    body.metrics = ['visitors', 'visit_duration', 'bounce_rate'].filter(() => random() < 0.6);
    if ((body.metrics as string[]).length === 0) body.metrics = ['bounce_rate'];
    body.dimensions = [`visit:${pick(['channel', 'source', 'country', 'browser', 'os', 'device', 'region'])}`];
    body.limit = 1 + Math.floor(random() * 4);
    if (random() < 0.4) body.offset = Math.floor(random() * 3);
  } else if (shape < 0.65) {
    const spanDays = Array.isArray(range) ? days : range === '7d' ? 7 : range === '1d' ? 1 : 31;
    body.dimensions = [`time:${pick(spanDays <= 31 ? ['hour', 'day', 'week', 'month'] : ['day', 'week', 'month'])}`];
  }
  if (random() < 0.3) body.compare = 'previous_period';
  if (random() < 0.1) body.filters = [{ field: 'country', operator: 'is', values: ['DE'] }];
  const site: ReportSite = { siteId: 1 + Math.floor(random() * 3), timezone, weekStart: 1 + Math.floor(random() * 7), goals: [], nowMs };
  return { body, site };
}

describe('hourly roll-ups answer exactly as the raw statements (differential, seeded)', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const read: string[] = [];
  let recording: EventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'rollups_test' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    const random = prng(35);
    // several inserts (several parts, unmerged roll-up rows), each session update a −1/+1 pair
    let firstSessionId = 1;
    for (let batch = 0; batch < 4; batch += 1) {
      const visits = randomVisits(random, 150);
      await seedVisits(events, visits, { siteId: 1, firstSessionId });
      firstSessionId += visits.length + 10;
    }
    // an import deleted afterwards (its raw rows and its roll-up rows, as ImportStore does)
    for (const table of [EVENTS_TABLE, SESSIONS_TABLE, ...ROLLUP_TABLES]) await deleteRows(events, table, 'import_id = {id:UInt64}', { id: 2 });
    recording = new Proxy(events, {
      get: (target, key) =>
        key === 'query' ? (sql: string, params?: Record<string, unknown>) => (read.push(sql), target.query(sql, params)) : Reflect.get(target, key, target),
    });
  }, 120_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  it("gives the same answer as today's statements for 200 random aggregates, time series and visit-attribute breakdowns", async () => {
    const random = prng(2026);
    let fromRollups = 0;
    let compared = 0;
    for (let i = 0; i < 200; i += 1) {
      const { body, site } = randomQuery(random);
      const request = parseQueryRequest(body);
      read.length = 0;
      const rolled = await runQuery({ events: recording, geo: intlGeoLabels }, request, site).catch((error: unknown) => ({ error: String(error) }));
      const usedRollups = read.some((sql) => /_hourly/.test(sql));
      const raw = await runQuery({ events, geo: intlGeoLabels, rollups: false }, request, site).catch((error: unknown) => ({ error: String(error) }));
      expect(rolled, `query ${i}: ${JSON.stringify({ body, site })}`).toEqual(raw);
      if (usedRollups) fromRollups += 1;
      if (!('error' in raw)) compared += 1;
    }
    // the comparison has teeth: most answers came from the roll-ups, and most were numbers
    expect(fromRollups).toBeGreaterThan(100);
    expect(compared).toBeGreaterThan(160);
  }, 240_000);

  it('uses the roll-ups only where they answer exactly: no filters, whole-hour buckets, day windows, rolled-up attributes', async () => {
    const ask = async (body: Record<string, unknown>, timezone: string) => {
      read.length = 0;
      await runQuery({ events: recording, geo: intlGeoLabels }, parseQueryRequest(body), {
        siteId: 1,
        timezone,
        weekStart: 1,
        goals: [],
        nowMs: Date.parse('2026-04-20T12:00:00Z'),
      });
      return read.some((sql) => /_hourly/.test(sql));
    };
    expect(await ask({ metrics: ['visitors', 'visits'], date_range: '30d' }, 'Europe/Berlin')).toBe(true);
    expect(await ask({ metrics: ['visitors'], date_range: '7d', dimensions: ['time:hour'] }, 'America/New_York')).toBe(true);
    expect(await ask({ metrics: ['visitors'], date_range: '30d' }, 'Asia/Kolkata')).toBe(false); // half-hour offset
    expect(await ask({ metrics: ['visitors'], date_range: '30d', filters: [{ field: 'country', operator: 'is', values: ['DE'] }] }, 'UTC')).toBe(false);
    expect(await ask({ metrics: ['visitors'], date_range: 'realtime' }, 'UTC')).toBe(false);
    expect(await ask({ metrics: ['visitors', 'bounce_rate'], date_range: '30d', dimensions: ['visit:country'] }, 'UTC')).toBe(true);
    expect(await ask({ metrics: ['visitors'], date_range: '30d', dimensions: ['visit:region'] }, 'UTC')).toBe(false);
    expect(await ask({ metrics: ['visitors'], date_range: '30d', dimensions: ['visit:entry_page'] }, 'UTC')).toBe(false);
    expect(await ask({ metrics: ['visitors'], date_range: '30d', dimensions: ['event:page'] }, 'UTC')).toBe(false);
  });
});

describe('hourly roll-ups, hand-computed', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'rollups_hand' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  it('carries a visit across hours and midnight, counts a visitor once across hours, and follows session versions', async () => {
    // V1: 06-01 23:40 pv, 23:55 pv, 06-02 00:20 pv, 00:45 Signup (4 versions) → 3 pageviews, 3900 s, starts 06-01
    // V1 again: 06-02 10:00 pv → bounce; V2: 06-02 00:30 pv (imported, import 5) → bounce
    await seedVisits(
      events,
      [
        {
          visitor: 1,
          events: [
            { at: '2026-06-01 23:40:00' },
            { at: '2026-06-01 23:55:00', path: '/a' },
            { at: '2026-06-02 00:20:00', path: '/b' },
            { at: '2026-06-02 00:45:00', name: 'Signup' },
          ],
        },
        { visitor: 1, events: [{ at: '2026-06-02 10:00:00' }] },
        { visitor: 2, importId: 5, events: [{ at: '2026-06-02 00:30:00' }] },
      ],
      { siteId: 1 },
    );
    const read: string[] = [];
    const recording = new Proxy(events, {
      get: (target, key) =>
        key === 'query' ? (sql: string, params?: Record<string, unknown>) => (read.push(sql), target.query(sql, params)) : Reflect.get(target, key, target),
    });
    const site: ReportSite = { siteId: 1, timezone: 'UTC', weekStart: 1, goals: [], nowMs: Date.parse('2026-06-03T12:00:00Z') };
    const ask = async (body: Record<string, unknown>) => (await runQuery({ events: recording, geo: intlGeoLabels }, parseQueryRequest(body), site)).results;
    // 06-02: the carried visit (started 06-01) counts whole; visitors V1 (its 00:20 pageview and 10:00) and V2
    expect(
      await ask({ metrics: ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit'], date_range: ['2026-06-02', '2026-06-02'] }),
    ).toEqual([{ metrics: { visitors: 2, pageviews: 3, visits: 3, visit_duration: 1300, bounce_rate: 67, views_per_visit: 1.67 } }]);
    expect(read.some((sql) => /sessions_hourly/.test(sql)) && read.some((sql) => /events_hourly/.test(sql))).toBe(true);
    expect(read.some((sql) => /FROM (events|sessions)\b/.test(sql.replace(/import_id > 0 LIMIT 1/, '')) && !/has_import/.test(sql))).toBe(false);
    // by hour on 06-02: the carried visit in the first bucket (00:00), V2 at 00:00, V1's bounce at 10:00
    const hours = await ask({ metrics: ['visitors', 'visits'], date_range: ['2026-06-02', '2026-06-02'], dimensions: ['time:hour'] });
    expect(hours.filter((r) => r.metrics.visitors !== 0 || r.metrics.visits !== 0).map((r) => [r.dimensions!['time:hour'], r.metrics])).toEqual([
      ['2026-06-02 00:00', { visitors: 2, visits: 2 }],
      ['2026-06-02 10:00', { visitors: 1, visits: 1 }],
    ]);
    // two days: V1 once though seen on both
    expect(await ask({ metrics: ['visitors', 'visits'], date_range: ['2026-06-01', '2026-06-02'] })).toEqual([{ metrics: { visitors: 2, visits: 3 } }]);
    // the import deleted with its roll-up rows: V2 and its visit go
    for (const table of [EVENTS_TABLE, SESSIONS_TABLE, ...ROLLUP_TABLES])
      await deleteRows(events, table, 'site_id = {site:UInt64} AND import_id = {id:UInt64}', { site: 1, id: 5 });
    expect(await ask({ metrics: ['visitors', 'visits'], date_range: ['2026-06-02', '2026-06-02'] })).toEqual([{ metrics: { visitors: 1, visits: 2 } }]);
  });
});

describe('EVENTS_RETENTION_DAYS: raw rows dropped by TTL, aggregates kept by the roll-ups', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'rollups_retention' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(events, randomVisits(prng(7), 200), { siteId: 1 });
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  const ttlOf = async (table: string) =>
    (await events.query<{ e: string }>('SELECT engine_full AS e FROM system.tables WHERE database = currentDatabase() AND name = {t:String}', { t: table }))[0]!
      .e;

  it('sets and removes the TTL, answers old windows from the roll-ups (saying so) after the raw rows are gone, and refuses what needs them', async () => {
    const nowMs = Date.parse('2026-06-01T12:00:00Z'); // the data: 2026-03-01 .. 2026-05-15
    const site: ReportSite = { siteId: 1, timezone: 'Europe/Berlin', weekStart: 1, goals: [], nowMs };
    const bodies = [
      { metrics: METRICS, date_range: ['2026-03-01', '2026-03-31'], compare: 'previous_period' },
      { metrics: ['visitors', 'visits', 'bounce_rate'], date_range: ['2026-04-01', '2026-04-20'], dimensions: ['time:day'] },
      { metrics: ['visitors', 'bounce_rate'], date_range: ['2026-03-01', '2026-05-31'], dimensions: ['visit:source'] },
    ];
    const raw = [];
    for (const body of bodies) raw.push(await runQuery({ events, geo: intlGeoLabels, rollups: false }, parseQueryRequest(body), site));
    expect(raw[0]!.results[0]!.metrics.visits).toBeGreaterThan(0);

    await applyEventsRetention(events, 30);
    expect(await ttlOf('events')).toMatch(/ TTL toDateTime\(timestamp\) \+ toIntervalDay\(30\)/);
    expect(await ttlOf('sessions')).toMatch(/ TTL /);
    // merges apply the TTL: every raw row is older than 30 days by the wall clock
    await events.command('OPTIMIZE TABLE events FINAL');
    await events.command('OPTIMIZE TABLE sessions FINAL');
    expect(Number((await events.query<{ n: number }>('SELECT (SELECT count() FROM events) + (SELECT count() FROM sessions) AS n'))[0]!.n)).toBe(0);

    // with 30 days kept as of 06-01, these windows start before the horizon: the roll-ups answer, the same numbers
    for (const [index, body] of bodies.entries()) {
      const answer = await runQuery({ events, geo: intlGeoLabels, retentionDays: 30 }, parseQueryRequest(body), site);
      expect(answer.meta?.from_rollups).toBe(true);
      const { meta: rawMeta, ...rawRest } = raw[index]!;
      const { meta, ...rest } = answer;
      expect(rest).toEqual(rawRest);
      expect({ ...meta, from_rollups: undefined }).toEqual({ ...rawMeta, from_rollups: undefined });
    }
    // what the roll-ups cannot answer there: a filter, a page breakdown
    await expectApiError(
      runQuery(
        { events, geo: intlGeoLabels, retentionDays: 30 },
        parseQueryRequest({ metrics: ['visitors'], date_range: ['2026-03-01', '2026-03-31'], filters: [{ field: 'country', operator: 'is', values: ['DE'] }] }),
        site,
      ),
      'outside_retention',
    );
    await expectApiError(
      runQuery(
        { events, geo: intlGeoLabels, retentionDays: 30 },
        parseQueryRequest({ metrics: ['visitors'], date_range: ['2026-03-01', '2026-03-31'], dimensions: ['event:page'] }),
        site,
      ),
      'outside_retention',
    );
    // a window inside the kept days: today's statements, no meta
    expect(
      (
        await runQuery(
          { events, geo: intlGeoLabels, retentionDays: 30 },
          parseQueryRequest({ metrics: ['visitors'], date_range: '7d', dimensions: ['event:page'] }),
          site,
        )
      ).meta?.from_rollups,
    ).toBeUndefined();

    await applyEventsRetention(events, undefined);
    expect(await ttlOf('events')).not.toMatch(/ TTL /);
    expect(await ttlOf('sessions')).not.toMatch(/ TTL /);
  });
});
