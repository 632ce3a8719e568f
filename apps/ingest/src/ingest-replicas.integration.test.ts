import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, collectedEventShard, collectedSubject, type SubjectPayloads } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import type { PgDb } from '@sightline/db';
import type { EventStore } from '@sightline/event-store';
import type { ServiceInstance } from '@sightline/runtime';
import { createLogger, ingestStoredEvents, readMetricValue } from '@sightline/telemetry';
import { backendGate, movableClock } from '@sightline/testkit';
import { startIngest } from './start-ingest.js';
import { fixturePorts, site } from './test-support/fixture-ports.js';
import { openIngestTestStores, type IngestTestStores } from './test-support/ingest-stores.js';

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
    for (const m of first) events.push({ ...base, u: `https://example.com/a/${m}`, ts: at((v % 5) + m) });
    for (const m of [70, 72]) events.push({ ...base, u: `https://example.com/b/${m}`, ts: at((v % 5) + m) });
  }
  return events;
}

describe.skipIf(!gate.available)('ingest replicas sharing the event shards', () => {
  let stores: IngestTestStores;
  let db: PgDb;
  let store: EventStore;
  const clock = movableClock(NOW);
  const log = createLogger({ level: 'silent' });

  beforeAll(async () => {
    stores = await openIngestTestStores(gate.url, 'ingest-replicas');
    ({ db, store } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  /** Runs `replicas` ingest instances on one bus over the traffic; returns what was stored, then empties the tables. */
  async function run(replicas: number, workers = 0): Promise<{ events: number; visitors: number; visits: number; pageviews: number; bounces: number }> {
    const bus = new LocalBus();
    const instances: ServiceInstance[] = [];
    try {
      for (let index = 0; index < replicas; index += 1) {
        const config = loadConfig({
          INGEST_BATCH_ROWS: '50',
          INGEST_BATCH_MAX_DELAY_MS: '30',
          EVENT_SHARDS: String(SHARDS),
          INGEST_REPLICAS: String(replicas),
          INGEST_REPLICA_INDEX: String(index),
          INGEST_WORKERS: String(workers),
        });
        const ports = fixturePorts({ replkey0001: site({ site_id: 21 }) }, {}, clock.clock);
        instances.push(await startIngest({ config, log, clock: clock.clock, db, events: store, bus }, { ports, workerGeo: { kind: 'table', table: {} } }));
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
      return {
        events: Number(e!.events),
        visitors: Number(e!.visitors),
        visits: Number(s!.visits),
        pageviews: Number(s!.pageviews),
        bounces: Number(s!.bounces),
      };
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

  it('pipeline worker threads (INGEST_WORKERS, each owning a share of the shards) store the same visitors and visits as the main thread alone', async () => {
    const expected = { events: 160, visitors: 40, visits: 80, pageviews: 160, bounces: 20 };
    const storedBefore = await readMetricValue(ingestStoredEvents);
    expect(await run(1, 2)).toEqual(expected);
    // the workers' batch metrics reach this thread's registry, the one /metrics serves
    expect((await readMetricValue(ingestStoredEvents)) - storedBefore).toBe(160);
    // both at once: two replicas of two workers, each worker with one shard of the four
    expect(await run(2, 2)).toEqual(expected);
  }, 90_000);
});
