import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEventStoreContract, uniqueName } from './event-store-contract.js';
import { LazyEventStore } from './lazy-event-store.js';
import { openEventStore } from './open-event-store.js';

// The first describe must run before anything in this process opens chDB: it reads
// which shared libraries the process has mapped (vitest runs each file in its own process).
const MAPS = '/proc/self/maps';
const chdbLoaded = () => readFileSync(MAPS, 'utf8').includes('libchdb');

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sightline-lazy-store-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(!existsSync(MAPS))('embedded store opened on first use', () => {
  it('loads no chDB for import, open, health or close; the first statement loads it and runs the queued migrations first', async () => {
    expect(chdbLoaded()).toBe(false);
    const store = await openEventStore({ dataDir: root, database: uniqueName('lazy'), embeddedOnFirstUse: true });
    expect(store).toBeInstanceOf(LazyEventStore);
    const lazy = store as LazyEventStore;
    expect(lazy.kind).toBe('chdb');
    let migrations = 0;
    await lazy.beforeFirstUse(async (real) => {
      migrations += 1;
      await real.command('CREATE TABLE IF NOT EXISTS hits (n UInt32) ENGINE = MergeTree ORDER BY n');
    });
    await lazy.ping();
    await lazy.ping();
    expect(migrations).toBe(0);
    expect(lazy.opened).toBe(false);
    expect(chdbLoaded()).toBe(false);

    // the table exists only because the hook ran before this insert
    await lazy.insert('hits', [{ n: 3 }, { n: 4 }]);
    expect(chdbLoaded()).toBe(true);
    expect(lazy.opened).toBe(true);
    expect(await lazy.query('SELECT sum(n) AS total FROM hits')).toEqual([{ total: 7 }]);
    await lazy.ping();
    expect(migrations).toBe(1);

    // a hook registered once open runs at once, and only once
    await lazy.beforeFirstUse(async (real) => {
      migrations += 1;
      await real.insert('hits', [{ n: 10 }]);
    });
    expect(migrations).toBe(2);
    expect(await lazy.query('SELECT sum(n) AS total FROM hits')).toEqual([{ total: 17 }]);
    await lazy.close();
    await expect(lazy.query('SELECT 1')).rejects.toThrow(/closed/);
    await expect(lazy.ping()).rejects.toThrow(/closed/);
  });
});

describe('LazyEventStore', () => {
  it('health before opening reports a data directory that vanished, without opening', async () => {
    const dir = path.join(root, 'vanishing');
    const store = await openEventStore({ dataDir: dir, database: 'sightline', embeddedOnFirstUse: true });
    await store.ping();
    await rm(dir, { recursive: true, force: true });
    await expect(store.ping()).rejects.toThrow(/ENOENT/);
    expect((store as LazyEventStore).opened).toBe(false);
    await store.close();
  });

  it('a failed first-use hook fails that statement, leaves the store unopened, and is retried by the next', async () => {
    const database = uniqueName('retry');
    let opens = 0;
    const lazy = new LazyEventStore({
      kind: 'chdb',
      database,
      open: async () => {
        opens += 1;
        return openEventStore({ dataDir: root, database });
      },
      pingUnopened: async () => {},
    });
    let attempts = 0;
    await lazy.beforeFirstUse(async (real) => {
      attempts += 1;
      if (attempts === 1) throw new Error('migration 0001 failed');
      await real.command('CREATE TABLE IF NOT EXISTS t (n UInt8) ENGINE = Memory');
    });
    await expect(lazy.query('SELECT count() AS c FROM t')).rejects.toThrow('migration 0001 failed');
    expect(lazy.opened).toBe(false);
    expect(await lazy.query('SELECT count() AS c FROM t')).toEqual([{ c: 0 }]);
    expect({ opens, attempts, opened: lazy.opened }).toEqual({ opens: 2, attempts: 2, opened: true });
    await lazy.close();
  });

  it('concurrent first statements open the store once', async () => {
    let opens = 0;
    const database = uniqueName('once');
    const lazy = new LazyEventStore({
      kind: 'chdb',
      database,
      open: async () => {
        opens += 1;
        return openEventStore({ dataDir: root, database });
      },
      pingUnopened: async () => {},
    });
    const answers = await Promise.all([1, 2, 3, 4].map((n) => lazy.query<{ n: number }>('SELECT {n:UInt8} AS n', { n })));
    expect(answers.map((rows) => rows[0]!.n)).toEqual([1, 2, 3, 4]);
    expect(opens).toBe(1);
    await lazy.close();
  });

  describeEventStoreContract('LazyEventStore over chDB', () => ({
    kind: 'chdb',
    open: (database) => openEventStore({ dataDir: root, database, embeddedOnFirstUse: true }),
  }));
});
