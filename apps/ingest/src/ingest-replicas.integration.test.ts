import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, collectedEventShard, collectedSubject, type SubjectPayloads } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { PgDb, runMigrations } from '@sightline/db';
import { ChdbEventStore, runEventMigrations, type EventStore } from '@sightline/event-store';
import type { ServiceInstance } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, movableClock, uniqueName, type TestDatabase } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR, INGEST_MIGRATIONS_DIR, INGEST_SCHEMA } from './migrations-dir.js';
import { startIngest } from './start-ingest.js';
import { fixturePorts, site } from './test-support/fixture-ports.js';

const gate = await backendGate('postgres');
const NOW = '2025-03-10T12:00:00.000Z';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const SHARDS = 4;
const VISITORS = 40;

type Collected = SubjectPayloads['events.collected.*'];
const at = (minutes: number) => new Date(Date.parse(NOW) - 3 * 3_600_000 + minutes * 60_000).toISOString();

/**
 * The traffic, built so the answer is known by hand: 40 visitors (own IP and tab
 * marker), each with two visits an hour apart. Visit 1: 3 pageviews for even
 * visitors, 1 (a bounce) for odd ones; visit 2: 2 pageviews.
 * → 40 visitors, 80 visits, 20·3 + 20·1 + 40·2 = 160 pageviews, 20 bounces.
 */
function traffic(): Collected[] {
  const events: Collected[] = [];
  for (let v = 0; v < VISITORS; v += 1) {
    const base = { k: 'replkey0001', n: 'pageview', d: 'example.com', ip: `198.51.100.${v + 1}`, ua: FIREFOX, s: `tab-${v}` };
    const first = v % 2 === 0 ? [0, 2, 4] : [0];
    for (const m of first) events.push({ ...base, u: `https://example.com/a/${m}`, ts: at(v % 5 + m) });
    for (const m of [70, 72]) events.push({ ...base, u: `https://example.com/b/${m}`, ts: at(v % 5 + m) });
  }
  return events;
}

describe.skipIf(!gate.available)('ingest replicas sharing the event shards', () => {
  let root: string;
  let testDb: TestDatabase;
  let db: PgDb;
  let store: EventStore;
  const clock = movableClock(NOW);
  const log = createLogger({ level: 'silent' });

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'sightline-ingest-replicas-'));
    testDb = await createTestDatabase(gate.url, 'sightline_ingest_replicas');
    db = new PgDb(testDb.url);
    await runMigrations(db, { schema: INGEST_SCHEMA, dir: INGEST_MIGRATIONS_DIR });
    store = await ChdbEventStore.open({ path: path.join(root, 'events'), database: uniqueName('replicas') });
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
  });

  afterAll(async () => {
    await store?.close();
    await db?.close();
    await testDb?.drop();
    await rm(root, { recursive: true, force: true });
  });

  /** Runs `replicas` ingest instances on one bus over the traffic; returns what was stored, then empties the tables. */
  async function run(replicas: number): Promise<{ events: number; visitors: number; visits: number; pageviews: number; bounces: number }> {
    const bus = new LocalBus();
    const instances: ServiceInstance[] = [];
    try {
      for (let index = 0; index < replicas; index += 1) {
        const config = loadConfig({ INGEST_BATCH_ROWS: '50', INGEST_BATCH_MAX_DELAY_MS: '30', EVENT_SHARDS: String(SHARDS), INGEST_REPLICAS: String(replicas), INGEST_REPLICA_INDEX: String(index) });
        instances.push(await startIngest({ config, log, clock: clock.clock, db, events: store, bus }, { ports: fixturePorts({ replkey0001: site({ site_id: 21 }) }, {}, clock.clock) }));
      }
      const events = traffic();
      // as the gateway publishes: each event to its visitor's shard
      for (const event of events) await bus.publish(collectedSubject(collectedEventShard(event, SHARDS)), event);
      const count = async () => Number((await store.query<{ n: number }>('SELECT count() AS n FROM events'))[0]?.n);
      const deadline = Date.now() + 30_000;
      while ((await count()) < events.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await Promise.all(instances.map((i) => i.stop()));
      instances.length = 0;
      const [e] = await store.query<{ events: number; visitors: number }>('SELECT count() AS events, uniqExact(visitor_id) AS visitors FROM events');
      const [s] = await store.query<{ visits: number; pageviews: number; bounces: number }>(
        'SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews, sum(is_bounce * sign) AS bounces FROM sessions',
      );
      return { events: Number(e!.events), visitors: Number(e!.visitors), visits: Number(s!.visits), pageviews: Number(s!.pageviews), bounces: Number(s!.bounces) };
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
      await bus.close();
      await store.command('TRUNCATE TABLE events');
      await store.command('TRUNCATE TABLE sessions');
    }
  }

  it('two replicas (each owning half the shards) store the same visitors and visits as one', async () => {
    const expected = { events: 160, visitors: 40, visits: 80, pageviews: 160, bounces: 20 };
    const one = await run(1);
    expect(one).toEqual(expected);
    const two = await run(2);
    expect(two).toEqual(expected);
  }, 90_000);
});
