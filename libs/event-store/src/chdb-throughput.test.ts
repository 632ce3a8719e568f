import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from './chdb-event-store.js';

// Prints the figures the event pipeline is sized on; asserts only correctness,
// never speed (shared CI machines vary too much for timing thresholds).
describe('chDB throughput figures', () => {
  let root: string;
  let store: ChdbEventStore;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'sightline-chdb-figures-'));
    store = await ChdbEventStore.open({ path: root, database: 'figures' });
    await store.command(`
      CREATE TABLE events (
        site_id UInt64,
        name LowCardinality(String),
        path String,
        visitor_id UInt64,
        ts DateTime('UTC')
      ) ENGINE = MergeTree
      ORDER BY (site_id, ts)`);
  });

  afterAll(async () => {
    await store?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('inserts 100k rows through EventStore.insert', async () => {
    const now = Date.now();
    const rows = Array.from({ length: 100_000 }, (_, i) => ({
      site_id: i % 50,
      name: i % 10 === 0 ? 'signup' : 'pageview',
      path: `/blog/post-${i % 500}`,
      visitor_id: i * 7919,
      ts: new Date(now - (i % 86_400) * 1000),
    }));
    const started = performance.now();
    await store.insert('events', rows);
    const ms = performance.now() - started;
    console.log(`[figures] insert 100k rows: ${ms.toFixed(0)} ms → ${Math.round(100_000 / (ms / 1000)).toLocaleString('en-US')} rows/s`);
    expect(await store.query('SELECT count() AS n FROM events')).toEqual([{ n: 100_000 }]);
  });

  it('GROUP BY over 1M rows', async () => {
    await store.command('TRUNCATE TABLE events');
    const genStarted = performance.now();
    await store.command(`
      INSERT INTO events
      SELECT number % 50, if(number % 10 = 0, 'signup', 'pageview'), concat('/blog/post-', toString(number % 500)),
             number * 7919, now() - toIntervalSecond(number % 86400)
      FROM numbers(1000000)`);
    const genMs = performance.now() - genStarted;
    const sql = `SELECT site_id, count() AS pageviews, uniq(visitor_id) AS visitors
                 FROM events WHERE name = {name:String} GROUP BY site_id ORDER BY pageviews DESC LIMIT 10`;
    await store.query(sql, { name: 'pageview' }); // warm-up
    const timings: number[] = [];
    let rows: { pageviews: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      rows = await store.query<{ pageviews: number }>(sql, { name: 'pageview' });
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    console.log(
      `[figures] INSERT … SELECT FROM numbers(1e6): ${genMs.toFixed(0)} ms; ` +
        `GROUP BY over 1M rows: median ${timings[2]!.toFixed(1)} ms (min ${timings[0]!.toFixed(1)}, max ${timings[4]!.toFixed(1)})`,
    );
    expect(rows).toHaveLength(10);
    // sites with site_id % 10 = 0 only hold signups; every other site has 20k pageviews
    expect(rows[0]?.pageviews).toBe(20_000);
  });
});
