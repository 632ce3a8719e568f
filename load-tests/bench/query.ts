import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChdbEventStore, runEventMigrations, type EventStore } from '@sightline/event-store';
import { intlGeoLabels, runQuery } from '@sightline/query';
import { makeTempDir } from '@sightline/testkit';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/ingest/clickhouse');
const EVENTS = Number(process.env.QUERY_BENCH_EVENTS ?? 10_000_000);
const RUNS = 15;

/** Records the statements a query ran, so they can be timed again without the pipeline. */
function recording(store: EventStore, log: Array<[string, Record<string, unknown>]>): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'query') return (sql: string, params: Record<string, unknown> = {}) => (log.push([sql, params]), target.query(sql, params));
      return Reflect.get(target, prop, receiver);
    },
  });
}

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

async function time(run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await run(); // warm
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

/**
 * POST /query's pipeline on chDB over generated data (QUERY_BENCH_EVENTS events, 30
 * days, 5 events per session, 200k visitors): p50/p95 per shape, beside the same
 * statements run directly (the difference is the pipeline's own cost).
 */
export async function benchQuery(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-query-');
  const store = await ChdbEventStore.open({ path: dir.path, database: 'bench' });
  const figures: Record<string, string | number> = {};
  try {
    await runEventMigrations(store, { dir: INGEST_MIGRATIONS });
    const started = performance.now();
    const span = 30 * 86_400;
    await store.command(`INSERT INTO events (site_id, timestamp, name, visitor_id, session_id, hostname, pathname, source, country, browser, device, engagement_ms, scroll_depth, status_code)
      SELECT 1, toDateTime64('2026-05-01 00:00:00', 3, 'UTC') + toIntervalSecond(intDiv(number, 5) * ${span} / ${Math.max(1, Math.floor(EVENTS / 5))} + number % 5 * 60),
        if(number % 5 = 4, 'engagement', if(number % 50 = 3, 'Signup', 'pageview')), intDiv(number, 5) % 200000, intDiv(number, 5), 'example.com',
        concat('/p/', toString(number % 500)), ['', 'Google', 'Bing', 'Newsletter'][number % 4 + 1], ['DE', 'FR', 'US', 'GB', 'JP'][intDiv(number, 5) % 5 + 1],
        ['Chrome', 'Firefox', 'Safari'][intDiv(number, 5) % 3 + 1], ['Desktop', 'Mobile'][intDiv(number, 5) % 2 + 1],
        if(number % 5 = 4, 20000, 0), if(number % 5 = 4, 60, 255), if(number % 5 = 4, 0, 200)
      FROM numbers(${EVENTS})`);
    await store.command(`INSERT INTO sessions (site_id, session_id, visitor_id, sign, version, start, timestamp, hostname, entry_page, exit_page, pageviews, events, is_bounce, duration, engagement_ms, source, country, browser, device)
      SELECT 1, number, number % 200000, 1, 1, toDateTime64('2026-05-01 00:00:00', 3, 'UTC') + toIntervalSecond(number * ${span} / ${Math.max(1, Math.floor(EVENTS / 5))}),
        toDateTime64('2026-05-01 00:00:00', 3, 'UTC') + toIntervalSecond(number * ${span} / ${Math.max(1, Math.floor(EVENTS / 5))} + 180), 'example.com',
        concat('/p/', toString(number * 5 % 500)), concat('/p/', toString((number * 5 + 3) % 500)), 4, 4, 0, 180, 20000,
        ['', 'Google', 'Bing', 'Newsletter'][number * 5 % 4 + 1], ['DE', 'FR', 'US', 'GB', 'JP'][number % 5 + 1], ['Chrome', 'Firefox', 'Safari'][number % 3 + 1], ['Desktop', 'Mobile'][number % 2 + 1]
      FROM numbers(${Math.floor(EVENTS / 5)})`);
    figures[`generate ${EVENTS.toLocaleString('en')} events + sessions (s)`] = Math.round((performance.now() - started) / 100) / 10;

    const site = { siteId: 1, timezone: 'Europe/Berlin', weekStart: 1, goals: [{ displayName: 'Signup', eventName: 'Signup' }], nowMs: Date.parse('2026-05-31T12:00:00Z') };
    const shapes: Array<[string, Record<string, unknown>]> = [
      ['aggregate, 30d, 7 metrics', { metrics: ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit', 'engagement_time'], date_range: '30d' }],
      ['time series by day, 30d', { metrics: ['visitors', 'pageviews', 'visits'], date_range: '30d', dimensions: ['time:day'] }],
      ['breakdown visit:source, 30d', { metrics: ['visitors', 'bounce_rate'], date_range: '30d', dimensions: ['visit:source'] }],
      ['breakdown event:page + filter, 30d', { metrics: ['visitors', 'pageviews', 'bounce_rate'], date_range: '30d', dimensions: ['event:page'], filters: [{ field: 'country', operator: 'is', values: ['DE'] }] }],
      ['aggregate + compare, 7d', { metrics: ['visitors', 'visits'], date_range: '7d', compare: 'previous_period' }],
    ];
    for (const [label, body] of shapes) {
      const statements: Array<[string, Record<string, unknown>]> = [];
      await runQuery({ events: recording(store, statements), geo: intlGeoLabels }, body, site);
      const pipeline = await time(() => runQuery({ events: store, geo: intlGeoLabels }, body, site));
      const direct = await time(async () => {
        for (const [sql, params] of statements) await store.query(sql, params);
      });
      figures[`${label}: pipeline p50/p95 (ms)`] = `${pipeline.p50}/${pipeline.p95}`;
      figures[`${label}: same ${statements.length} statements direct p50/p95 (ms)`] = `${direct.p50}/${direct.p95}`;
    }
  } finally {
    await store.close();
    await dir.remove();
  }
  return figures;
}
