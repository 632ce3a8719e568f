import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { parseQueryRequest } from '@sightline/query-contract';
import { expectApiError, makeTempDir } from '@sightline/testkit';
import { BoundedReads } from './bounded-reads.js';
import { intlGeoLabels } from './geo-labels.js';
import { runQuery } from './query/run-query.js';
import type { ReportSite } from './query/report-site.js';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ingest/clickhouse');
const MiB = 1024 * 1024;

/*
 * Issue 29: a report's memory is bounded. 125 000 events of site 1 in the week of
 * 2026-06-01, event n (0 ≤ n < 125 000): visitor n % 10 000; a Signup when n % 5 = 0,
 * else a pageview of /blog/<n % 500>. Hand-computed: 25 000 Signups by the 2 000
 * visitors whose number is a multiple of 5; 100 000 blog pageviews by the other 8 000.
 */
const EVENTS = 125_000;
const WEEK = ['2026-06-01', '2026-06-07'];
/** A page goal at the creation limits: 16 wildcards, 2048 characters (it matches no page here). */
const AT_LIMIT = `/${'*a'.repeat(16)}${'b'.repeat(2048 - 33)}`;
const site: ReportSite = {
  siteId: 1,
  timezone: 'UTC',
  weekStart: 1,
  nowMs: Date.parse('2026-06-10T12:00:00Z'),
  goals: [
    { displayName: 'At the limit', pagePath: AT_LIMIT },
    { displayName: 'Blog', pagePath: '/blog/*' },
    { displayName: 'Signup', eventName: 'Signup' },
  ],
};

describe('reads bounded per report (real chDB)', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let store: ChdbEventStore;
  const ask = async (maxMemoryBytes: number, body: Record<string, unknown>) =>
    runQuery({ events: new BoundedReads(store, maxMemoryBytes), geo: intlGeoLabels }, parseQueryRequest({ date_range: WEEK, ...body }), site);

  beforeAll(async () => {
    dir = await makeTempDir();
    store = await ChdbEventStore.open({ path: dir.path, database: 'bounded_reads_test' });
    await runEventMigrations(store, { dir: INGEST_MIGRATIONS });
    await store.command(`INSERT INTO events (site_id, timestamp, name, visitor_id, session_id, pathname)
      SELECT 1, toDateTime64('2026-06-01 00:00:00', 3, 'UTC') + toIntervalSecond(number * 4), if(number % 5 = 0, 'Signup', 'pageview'),
        number % 10000, number % 20000, if(number % 5 = 0, '/', concat('/blog/', toString(number % 500)))
      FROM numbers(${EVENTS})`);
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await dir?.remove();
  });

  it('goals, one at the pattern limits, break down 125k events within 64 MiB per statement', async () => {
    // before the fix each row held every goal's pattern: ~640 MB for one 2 KB pattern (issue 29)
    const answer = await ask(64 * MiB, { metrics: ['visitors', 'events'], dimensions: ['event:goal'] });
    expect(answer.results).toEqual([
      { dimensions: { 'event:goal': 'Blog' }, metrics: { visitors: 8_000, events: 100_000 } },
      { dimensions: { 'event:goal': 'Signup' }, metrics: { visitors: 2_000, events: 25_000 } },
    ]);
  });

  it('a report past the limit answers 422 query_too_large; the engine answers the next one', async () => {
    // scroll_depth groups the window's rows by (page, session) first: ~100 000 groups
    const heavy = { metrics: ['visitors', 'pageviews', 'scroll_depth'], dimensions: ['event:page'], limit: 1 };
    await expectApiError(ask(1 * MiB, heavy), 'query_too_large', /narrow the date range/);
    const next = await ask(256 * MiB, heavy);
    expect(next.meta?.total).toBe(401); // "/" and /blog/<n % 500> for n not a multiple of 5
  });

  it('0 sets no limit of ours', async () => {
    const answer = await ask(0, { metrics: ['pageviews'] });
    expect(answer.results).toEqual([{ metrics: { pageviews: 100_000 } }]);
  });
});
