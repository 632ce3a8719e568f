import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from './chdb-event-store.js';
import { describeEventStoreContract, uniqueName } from './event-store-contract.js';
import { openEventStore } from './open-event-store.js';

// chDB holds one data directory per process; every store in this file shares it
// except the last describe, which proves the guard.
let root: string;
let dataDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sightline-chdb-store-'));
  dataDir = path.join(root, 'events');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describeEventStoreContract('ChdbEventStore (in-process ClickHouse engine)', () => ({
  kind: 'chdb',
  open: (database) => ChdbEventStore.open({ path: dataDir, database }),
}));

describe('ChdbEventStore specifics', () => {
  it('keeps data across close and reopen of the same directory', async () => {
    const database = uniqueName('persist');
    const first = await ChdbEventStore.open({ path: dataDir, database });
    await first.command(`CREATE TABLE kept (id UInt64, at DateTime('UTC')) ENGINE = MergeTree ORDER BY id`);
    await first.insert('kept', [
      { id: 7, at: new Date() },
      { id: 8, at: new Date() },
    ]);
    await first.close();
    await expect(first.query('SELECT 1')).rejects.toThrow(/closed/);

    const again = await ChdbEventStore.open({ path: dataDir, database });
    try {
      expect(await again.query('SELECT id FROM kept ORDER BY id')).toEqual([{ id: 7 }, { id: 8 }]);
    } finally {
      await again.close();
    }
  });

  it('shares one directory between stores, each with its own current database', async () => {
    const a = await ChdbEventStore.open({ path: dataDir, database: uniqueName('a') });
    const b = await ChdbEventStore.open({ path: dataDir, database: uniqueName('b') });
    try {
      const [rowA] = await a.query<{ db: string }>('SELECT currentDatabase() AS db');
      const [rowB] = await b.query<{ db: string }>('SELECT currentDatabase() AS db');
      expect(rowA?.db).toBe(a.database);
      expect(rowB?.db).toBe(b.database);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('does not block the event loop while a query runs', async () => {
    const store = await ChdbEventStore.open({ path: dataDir, database: uniqueName('async') });
    try {
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 1);
      const started = performance.now();
      await store.query('SELECT sum(sipHash64(number)) AS h FROM numbers(30000000)');
      const elapsed = performance.now() - started;
      clearInterval(timer);
      // The timer kept firing while the engine worked on the libuv pool.
      expect(elapsed).toBeGreaterThan(20);
      expect(ticks).toBeGreaterThan(5);
    } finally {
      await store.close();
    }
  });

  it('openEventStore({ dataDir }) opens chDB under <dataDir>/events', async () => {
    const store = await openEventStore({ dataDir: root, database: uniqueName('open') });
    try {
      expect(store.kind).toBe('chdb');
      expect((store as ChdbEventStore).path).toBe(dataDir);
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('refuses a second data directory while one is open, and allows it once all are closed', async () => {
    const otherDir = path.join(root, 'other');
    const held = await ChdbEventStore.open({ path: dataDir, database: uniqueName('held') });
    await expect(ChdbEventStore.open({ path: otherDir })).rejects.toThrow(/one data directory per process: .*events is already open/);
    await held.close();

    const moved = await ChdbEventStore.open({ path: otherDir, database: 'moved' });
    try {
      await moved.command('CREATE TABLE IF NOT EXISTS t (x UInt8) ENGINE = MergeTree ORDER BY x');
      await moved.insert('t', [{ x: 1 }]);
      expect(await moved.query('SELECT x FROM t')).toEqual([{ x: 1 }]);
    } finally {
      await moved.close();
    }
  });
});
