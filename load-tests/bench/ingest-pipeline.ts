import path from 'node:path';
import { collectedEventShard, collectedSubject, DEFAULT_EVENT_SHARDS, LocalBus, type SubjectPayloads } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { PgDb, runMigrations } from '@sightline/db';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { systemClock } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { backendUrl, createTestDatabase, makeTempDir } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR, INGEST_MIGRATIONS_DIR, INGEST_SCHEMA } from '../../apps/ingest/src/migrations-dir.js';
import { SessionCache } from '../../apps/ingest/src/sessions/session-cache.js';
import { applyEvent } from '../../apps/ingest/src/sessions/sessionizer.js';
import { startIngest } from '../../apps/ingest/src/start-ingest.js';
import { fixturePorts, site } from '../../apps/ingest/src/test-support/fixture-ports.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

/**
 * Ingest end to end on chDB with the in-process bus: events/s from publish to
 * stored, publish-to-queryable latency, bytes per event on disk, and the resident
 * memory of 100 000 live sessions. Needs PostgreSQL (the daily salts).
 */
export async function benchIngest(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-ingest-');
  const testDb = await createTestDatabase(backendUrl('postgres'), 'sightline_bench_ingest');
  const db = new PgDb(testDb.url);
  const store = await ChdbEventStore.open({ path: path.join(dir.path, 'events'), database: 'bench' });
  const bus = new LocalBus();
  const figures: Record<string, string | number> = {};
  try {
    await runMigrations(db, { schema: INGEST_SCHEMA, dir: INGEST_MIGRATIONS_DIR });
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    // where the time goes: inside chDB inserts vs the rest of the pipeline
    const inserts = { ms: 0, calls: 0, rows: 0 };
    const insert = store.insert.bind(store);
    store.insert = async (table, rows) => {
      const t = performance.now();
      await insert(table, rows);
      inserts.ms += performance.now() - t;
      inserts.calls += 1;
      inserts.rows += rows.length;
    };
    const ports = fixturePorts({ benchkey0001: site({ site_id: 1 }) }, {}, systemClock);
    const config = { ...loadConfig({}), INGEST_BATCH_ROWS: Number(process.env.BENCH_BATCH_ROWS ?? 5000), INGEST_BATCH_MAX_DELAY_MS: 1000, EVENT_SHARDS: DEFAULT_EVENT_SHARDS, INGEST_REPLICAS: 1 };
    // as the gateway does: each event to its visitor's shard
    const publish = (event: SubjectPayloads['events.collected.*']) => bus.publish(collectedSubject(collectedEventShard(event, DEFAULT_EVENT_SHARDS)), event);
    const ingest = await startIngest({ config, log: createLogger({ level: 'silent' }), clock: systemClock, db, events: store, bus }, { ports });
    const stored = async () => Number((await store.query<{ n: number }>('SELECT count() AS n FROM events'))[0]?.n);

    const total = 20_000;
    const started = performance.now();
    const publishes: Promise<void>[] = [];
    for (let i = 0; i < total; i += 1) {
      const ts = new Date(Date.now() + i).toISOString();
      publishes.push(publish({ k: 'benchkey0001', n: 'pageview', u: `https://example.com/p/${i % 300}`, d: 'example.com', ts, ip: `10.0.${(i >> 8) % 8}.${i % 256}`, ua: UA }));
    }
    await Promise.all(publishes);
    while ((await stored()) < total) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - started) / 1000;
    figures['chDB + LocalBus: events/s stored end to end (20k events)'] = Math.round(total / seconds);
    figures['  of which inside chDB inserts (ms / calls / rows)'] = `${Math.round(inserts.ms)} of ${Math.round(seconds * 1000)} / ${inserts.calls} / ${inserts.rows}`;

    const latencies: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const before = await stored();
      const t = performance.now();
      await publish({ k: 'benchkey0001', n: 'custom', u: 'https://example.com/', d: 'example.com', ts: new Date().toISOString(), ip: '10.1.0.1', ua: UA });
      while ((await stored()) <= before) await new Promise((r) => setTimeout(r, 5));
      latencies.push(performance.now() - t);
    }
    latencies.sort((a, b) => a - b);
    figures['publish → queryable latency p50/p99 (ms, batch delay 1 s)'] = `${Math.round(latencies[9]!)}/${Math.round(latencies[19]!)}`;
    await ingest.stop();

    await store.command('OPTIMIZE TABLE events FINAL');
    const [disk] = await store.query<{ bytes: number; rows: number }>(
      "SELECT sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts WHERE database = currentDatabase() AND table = 'events' AND active",
    );
    figures['events: bytes per event on disk (system.parts, 20k rows)'] = (Number(disk?.bytes) / Number(disk?.rows)).toFixed(1);
  } finally {
    await bus.close();
    await store.close();
    await db.close();
    await testDb.drop();
    await dir.remove();
  }

  global.gc?.();
  const before = process.memoryUsage();
  const cache = new SessionCache();
  const t0 = Date.now();
  for (let i = 0; i < 100_000; i += 1) {
    const step = applyEvent(undefined, {
      site_id: 1, at: t0 + i, name: 'pageview', visitor_id: String(1_000_000_000_000 + i), marker: `tab-${i}`, hostname: 'example.com', pathname: `/p/${i % 300}`,
      prop_keys: [], prop_values: [], engagement_ms: 0, scroll_depth: 255, status_code: 0, import_id: 0,
      attributes: { referrer: 'https://news.example.net/', source: 'news.example.net', channel: 'Referral', utm_source: '', utm_medium: '', utm_campaign: '', utm_content: '', utm_term: '', click_id: '', country: 'DE', region: 'DE-BE', city: 2950159, browser: 'Firefox', browser_version: '120.0', os: 'GNU/Linux', os_version: '', device: 'Desktop' },
    });
    cache.put(step.session!, step.session!.visitor_id);
  }
  global.gc?.();
  const after = process.memoryUsage();
  figures['100 000 live sessions: heap growth (MiB)'] = ((after.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1);
  figures['100 000 live sessions: process RSS (MiB, chDB included)'] = (after.rss / 2 ** 20).toFixed(1);
  figures['live sessions held'] = cache.size;
  return figures;
}
