/**
 * The EventStore contract, written once and run over every adapter (see
 * chdb-event-store.test.ts and clickhouse-event-store.test.ts). Real engine,
 * no mocks. Fixture timestamps sit near "now" so no TTL or partition logic can
 * treat them as ancient.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from './event-store.js';
import { EventStoreError } from './event-store-error.js';
import { encodeRows } from './json-each-row.js';
import { runEventMigrations } from './migrate.js';

export interface EventStoreHarness {
  kind: EventStore['kind'];
  /** Opens a store whose default database is `database` (created if missing). */
  open(database: string): Promise<EventStore>;
}

let counter = 0;
/** A name unique to this run, usable as a database or table name. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf<E = Error>(promise: Promise<unknown>): Promise<E> {
  return promise.then(
    () => {
      throw new Error('expected a rejection, but the promise resolved');
    },
    (error: unknown) => error as E,
  );
}

const HOUR = 3_600_000;

/** 'YYYY-MM-DD hh:mm:ss' in UTC — how ClickHouse prints a DateTime in a UTC session. */
function clickhouseUtc(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

function dateIn(timeZone: string, date: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

async function migrationDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sightline-event-migrations-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(path.join(dir, name), sql);
  return dir;
}

export function describeEventStoreContract(title: string, getHarness: () => EventStoreHarness): void {
  describe(`EventStore contract: ${title}`, () => {
    let store: EventStore;
    let harness: EventStoreHarness;
    const database = uniqueName('contract');
    // Whole seconds: DateTime has no sub-second part.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const cleanups: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      harness = getHarness();
      store = await harness.open(database);
    });

    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      await store?.close();
    });

    async function openExtra(db: string): Promise<EventStore> {
      const extra = await harness.open(db);
      cleanups.push(() => extra.close());
      return extra;
    }

    async function createEventsTable(): Promise<string> {
      const table = uniqueName('events');
      await store.command(`
        CREATE TABLE ${table} (
          site_id UInt64,
          name String,
          path String,
          tags Array(String),
          ts DateTime('UTC')
        ) ENGINE = MergeTree
        ORDER BY (site_id, ts)`);
      return table;
    }

    it('reports its kind and database, and answers ping', async () => {
      expect(store.kind).toBe(harness.kind);
      expect(store.database).toBe(database);
      await expect(store.ping()).resolves.toBeUndefined();
      const [row] = await store.query<{ db: string }>('SELECT currentDatabase() AS db');
      expect(row?.db).toBe(database);
    });

    it('inserts 10k rows in one call and reads them back', async () => {
      const table = await createEventsTable();
      const rows = Array.from({ length: 10_000 }, (_, i) => ({
        site_id: i % 10,
        name: i % 2 === 0 ? 'pageview' : 'signup',
        path: `/page/${i % 100}`,
        tags: [`t${i % 3}`],
        ts: clickhouseUtc(new Date(now.getTime() - (i % 48) * HOUR)),
      }));
      await store.insert(table, rows);
      const [totals] = await store.query<{ n: number; sites: number; sum_site: number }>(
        `SELECT count() AS n, uniqExact(site_id) AS sites, sum(site_id) AS sum_site FROM ${table}`,
      );
      expect(totals).toEqual({ n: 10_000, sites: 10, sum_site: 45_000 });
    });

    it('binds typed parameters: String, UInt64, DateTime, Array(String)', async () => {
      const table = await createEventsTable();
      await store.insert(table, [
        { site_id: 1, name: 'pageview', path: '/a', tags: ['x'], ts: clickhouseUtc(new Date(now.getTime() - 2 * HOUR)) },
        { site_id: 1, name: 'pageview', path: '/b', tags: ['y'], ts: clickhouseUtc(new Date(now.getTime() - 30 * HOUR)) },
        { site_id: 2, name: 'pageview', path: '/a', tags: ['x'], ts: clickhouseUtc(new Date(now.getTime() - 2 * HOUR)) },
        { site_id: 1, name: 'signup', path: '/c', tags: ['z'], ts: clickhouseUtc(new Date(now.getTime() - HOUR)) },
      ]);
      const rows = await store.query<{ path: string; ts: string }>(
        `SELECT path, ts FROM ${table}
         WHERE site_id = {site:UInt64} AND name = {name:String} AND ts >= {from:DateTime}
           AND path IN {paths:Array(String)}
         ORDER BY path`,
        { site: 1, name: 'pageview', from: clickhouseUtc(new Date(now.getTime() - 24 * HOUR)), paths: ['/a', '/b', '/zzz'] },
      );
      expect(rows).toEqual([{ path: '/a', ts: clickhouseUtc(new Date(now.getTime() - 2 * HOUR)) }]);

      // A JS Date binds as an instant, independent of any time zone.
      const [viaDate] = await store.query<{ n: number }>(`SELECT count() AS n FROM ${table} WHERE ts >= {from:DateTime} AND site_id = {site:UInt64}`, {
        from: new Date(now.getTime() - 24 * HOUR),
        site: 1n,
      });
      expect(viaDate?.n).toBe(2);
    });

    it('returns 64-bit integers as JS numbers', async () => {
      const [row] = await store.query<Record<string, unknown>>(
        `SELECT toUInt64(9007199254740991) AS u, toInt64(-42) AS i, count() AS c, sum(number) AS s
         FROM numbers(1000)`,
      );
      expect(row).toEqual({ u: 9007199254740991, i: -42, c: 1000, s: 499_500 });
      for (const value of Object.values(row ?? {})) expect(typeof value).toBe('number');
    });

    it('treats hostile string parameters as data', async () => {
      const table = await createEventsTable();
      const hostile = ["'; DROP TABLE " + table + '; --', 'it\'s a "quote" and a back\\slash \\\' \\\\', 'tab\tnew\nline and unicode ✓ {curly:String}'];
      await store.insert(
        table,
        hostile.map((path, i) => ({ site_id: i, name: 'pageview', path, tags: [path], ts: clickhouseUtc(now) })),
      );
      for (const [i, value] of hostile.entries()) {
        const [echo] = await store.query<{ s: string; a: string[] }>('SELECT {s:String} AS s, {a:Array(String)} AS a', {
          s: value,
          a: [value, 'plain'],
        });
        expect(echo).toEqual({ s: value, a: [value, 'plain'] });
        const found = await store.query<{ site_id: number }>(`SELECT site_id FROM ${table} WHERE path = {p:String} AND has(tags, {p:String})`, { p: value });
        expect(found).toEqual([{ site_id: i }]);
      }
      const [still] = await store.query<{ n: number }>(`SELECT count() AS n FROM ${table}`);
      expect(still?.n).toBe(hostile.length);
    });

    it('rejects a syntax error with an EventStoreError carrying the ClickHouse message', async () => {
      const e = await rejectionOf<EventStoreError>(store.query('SELEC 1 FROM'));
      expect(e).toBeInstanceOf(EventStoreError);
      expect(e).toBeInstanceOf(Error);
      expect(e.message).toMatch(/Syntax error/);
      expect(e.code).toBe(62);
      expect(e.type).toBe('SYNTAX_ERROR');

      // A server takes one statement per call; chDB is held to the same rule.
      const multi = await rejectionOf<EventStoreError>(store.command('SELECT 1; SELECT 2'));
      expect(multi).toMatchObject({ code: 62, type: 'SYNTAX_ERROR' });
      expect(await store.query('SELECT 1 AS one;')).toEqual([{ one: 1 }]);

      const missing = await rejectionOf<EventStoreError>(store.query('SELECT * FROM no_such_table_here'));
      expect(missing).toBeInstanceOf(EventStoreError);
      expect(missing.code).toBe(60);
      expect(missing.message).toMatch(/no_such_table_here/);
    });

    it('runs commands, including a synchronous ALTER … DELETE mutation', async () => {
      const table = await createEventsTable();
      await store.insert(
        table,
        Array.from({ length: 100 }, (_, i) => ({ site_id: i % 4, name: 'pageview', path: '/', tags: [], ts: clickhouseUtc(now) })),
      );
      await expect(
        store.command(`ALTER TABLE ${table} DELETE WHERE site_id = {site:UInt64} SETTINGS mutations_sync = 2`, { site: 3 }),
      ).resolves.toBeUndefined();
      const rows = await store.query<{ site_id: number; n: number }>(`SELECT site_id, count() AS n FROM ${table} GROUP BY site_id ORDER BY site_id`);
      expect(rows).toEqual([
        { site_id: 0, n: 25 },
        { site_id: 1, n: 25 },
        { site_id: 2, n: 25 },
      ]);
      await expect(store.command('DROP TABLE no_such_table_either')).rejects.toBeInstanceOf(EventStoreError);
    });

    it('insert: accepts Dates and bigints, ignores an empty batch, rejects unknown keys', async () => {
      const table = await createEventsTable();
      await store.insert(table, []);
      await store.insert(table, [{ site_id: 12345678901234n, name: 'pageview', path: '/', tags: [], ts: now }]);
      const rows = await store.query(`SELECT site_id, ts FROM ${table}`);
      expect(rows).toEqual([{ site_id: 12345678901234, ts: clickhouseUtc(now) }]);
      await expect(store.insert(table, [{ site_id: 1, name: 'x', path: '/', tags: [], ts: now, no_such_column: 1 }])).rejects.toBeInstanceOf(EventStoreError);
      await expect(store.insert(`${table}; DROP TABLE ${table}`, [{ site_id: 1 }])).rejects.toThrow(/Invalid table name/);
    });

    it('insert: rows of different shapes in one batch — keys in any order, a column left out takes its default', async () => {
      const table = await createEventsTable();
      const ts = clickhouseUtc(now);
      // one shape, keys in two orders (positional rows on chDB), then a batch with a row that leaves path out
      await store.insert(table, [
        { site_id: 1, name: 'pageview', path: '/a', tags: ['x'], ts },
        { ts, tags: ['y', 'z'], path: '/b, "quoted"', name: 'signup', site_id: 2 },
      ]);
      await store.insert(table, [
        { site_id: 3, name: 'pageview', path: '/c', tags: [], ts },
        { site_id: 4, name: 'pageview', tags: ['w'], ts },
      ]);
      const rows = await store.query(`SELECT site_id, name, path, tags FROM ${table} ORDER BY site_id`);
      expect(rows).toEqual([
        { site_id: 1, name: 'pageview', path: '/a', tags: ['x'] },
        { site_id: 2, name: 'signup', path: '/b, "quoted"', tags: ['y', 'z'] },
        { site_id: 3, name: 'pageview', path: '/c', tags: [] },
        { site_id: 4, name: 'pageview', path: '', tags: ['w'] },
      ]);
    });

    it('insertEncoded: rows encoded beforehand (positional or keyed) go in as insert would; an unknown or unsafe column is refused', async () => {
      const table = await createEventsTable();
      const ts = clickhouseUtc(now);
      const positional = encodeRows([
        { site_id: 1, name: 'pageview', path: '/a, "q"', tags: ['x'], ts },
        { site_id: 2, name: 'signup', path: '/b', tags: [], ts },
      ]);
      expect(positional.format).toBe('JSONCompactEachRow');
      // a copy, as a worker thread's transferred buffer arrives: no Buffer, a bare Uint8Array
      await store.insertEncoded(table, { ...positional, payload: new Uint8Array(positional.payload) });
      const keyed = encodeRows([
        { site_id: 3, name: 'pageview', path: '/c', tags: ['y'], ts },
        { site_id: 4, name: 'x', tags: [], ts },
      ]);
      expect(keyed.format).toBe('JSONEachRow');
      await store.insertEncoded(table, keyed);
      await store.insertEncoded(table, encodeRows([]));
      const rows = await store.query(`SELECT site_id, name, path, tags FROM ${table} ORDER BY site_id`);
      expect(rows).toEqual([
        { site_id: 1, name: 'pageview', path: '/a, "q"', tags: ['x'] },
        { site_id: 2, name: 'signup', path: '/b', tags: [] },
        { site_id: 3, name: 'pageview', path: '/c', tags: ['y'] },
        { site_id: 4, name: 'x', path: '', tags: [] },
      ]);
      await expect(store.insertEncoded(table, encodeRows([{ site_id: 5, no_such_column: 1 }]))).rejects.toBeInstanceOf(EventStoreError);
      await expect(store.insertEncoded(table, { ...encodeRows([{ site_id: 6 }]), columns: ['site_id`) FORMAT CSV --'] })).rejects.toThrow(
        /Invalid column name/,
      );
      expect(await store.query(`SELECT count() AS n FROM ${table}`)).toEqual([{ n: 4 }]);
    });

    it('supports time-zone functions and interval bucketing', async () => {
      // 02:30 UTC today: still "yesterday" in New York whatever the DST state.
      const early = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 2, 37, 0));
      const [row] = await store.query<Record<string, string>>(
        `SELECT
           toString(toDate({ts:DateTime('UTC')}, 'America/New_York')) AS ny_date,
           toString(toDate({ts:DateTime('UTC')})) AS utc_date,
           toString(toStartOfInterval({ts:DateTime('UTC')}, INTERVAL 15 MINUTE)) AS bucket,
           toString(toStartOfDay({ts:DateTime('UTC')}, 'Asia/Kolkata')) AS kolkata_day`,
        { ts: early },
      );
      expect(row?.ny_date).toBe(dateIn('America/New_York', early));
      expect(row?.utc_date).toBe(dateIn('UTC', early));
      expect(row?.ny_date).not.toBe(row?.utc_date);
      expect(row?.bucket).toBe(clickhouseUtc(new Date(early.getTime() - 7 * 60_000)));
      expect(row?.kolkata_day).toBe(`${dateIn('Asia/Kolkata', early)} 00:00:00`);
    });

    it('query maxMemoryBytes: past it MEMORY_LIMIT_EXCEEDED (241), the same read within it or unlimited answers', async () => {
      // ~20 MB of hash table: well past 1 MiB
      const heavy = 'SELECT uniqExact(number) AS n FROM numbers(1000000)';
      const refused = await rejectionOf<EventStoreError>(store.query(heavy, {}, { maxMemoryBytes: 1024 * 1024 }));
      expect(refused).toBeInstanceOf(EventStoreError);
      expect(refused).toMatchObject({ code: 241, type: 'MEMORY_LIMIT_EXCEEDED' });
      expect(await store.query(heavy, {}, { maxMemoryBytes: 512 * 1024 * 1024 })).toEqual([{ n: 1_000_000 }]);
      expect(await store.query(heavy, {}, { maxMemoryBytes: 0 })).toEqual([{ n: 1_000_000 }]);
      // bound parameters, a trailing semicolon or comment keep working with the limit
      expect(await store.query('SELECT {i:UInt32} AS v; ', { i: 7 }, { maxMemoryBytes: 64 * 1024 * 1024 })).toEqual([{ v: 7 }]);
      expect(await store.query('SELECT 1 AS v -- one', {}, { maxMemoryBytes: 64 * 1024 * 1024 })).toEqual([{ v: 1 }]);
      await expect(store.query('SELECT 1', {}, { maxMemoryBytes: 1.5 })).rejects.toThrow(RangeError);
    });

    it('serves concurrent queries', async () => {
      const results = await Promise.all(Array.from({ length: 16 }, (_, i) => store.query<{ v: number }>('SELECT {i:UInt32} * 2 AS v', { i })));
      expect(results.map((r) => r[0]?.v)).toEqual(Array.from({ length: 16 }, (_, i) => i * 2));
    });

    describe('migrations', () => {
      const created = `
-- events table; the ';' in this comment must not split anything
CREATE TABLE IF NOT EXISTS events (
  site_id UInt64,
  note String DEFAULT 'a;b',
  ts DateTime('UTC')
) ENGINE = MergeTree ORDER BY (site_id, ts);

CREATE TABLE IF NOT EXISTS sessions (site_id UInt64, started DateTime('UTC')) ENGINE = MergeTree ORDER BY site_id;
`;
      const addColumn = `ALTER TABLE events ADD COLUMN IF NOT EXISTS path String DEFAULT '/; not a split';\n`;

      it('applies pending files once, in order; a rerun applies nothing', async () => {
        const db = await openExtra(uniqueName('mig'));
        const dir = await migrationDir({ '0002_add_path.sql': addColumn, '0001_create_events.sql': created, 'README.md': 'ignored' });
        cleanups.push(() => rm(dir, { recursive: true, force: true }));

        expect(await runEventMigrations(db, { dir })).toEqual({ applied: ['0001_create_events.sql', '0002_add_path.sql'] });
        expect(await runEventMigrations(db, { dir })).toEqual({ applied: [] });

        await db.insert('events', [{ site_id: 1, ts: now }]);
        expect(await db.query('SELECT note, path FROM events')).toEqual([{ note: 'a;b', path: '/; not a split' }]);
        const recorded = await db.query<{ version: number; name: string; checksum: string }>(
          'SELECT version, name, checksum FROM schema_migrations FINAL ORDER BY version',
        );
        expect(recorded.map((r) => [r.version, r.name])).toEqual([
          [1, '0001_create_events.sql'],
          [2, '0002_add_path.sql'],
        ]);
        expect(recorded[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
      });

      it('refuses an applied migration whose checksum changed', async () => {
        const db = await openExtra(uniqueName('mig'));
        const dir = await migrationDir({ '0001_create_events.sql': created });
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        await runEventMigrations(db, { dir });
        await writeFile(path.join(dir, '0001_create_events.sql'), `${created}\n-- edited`);
        await writeFile(path.join(dir, '0002_add_path.sql'), addColumn);
        await expect(runEventMigrations(db, { dir })).rejects.toThrow(/0001_create_events\.sql was changed/);
        // nothing after the drift ran
        const columns = await db.query<{ name: string }>(
          "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name = 'path'",
        );
        expect(columns).toEqual([]);
      });

      it('does not record a failing migration, and applies it once fixed', async () => {
        const db = await openExtra(uniqueName('mig'));
        const dir = await migrationDir({
          '0001_create_events.sql': created,
          '0002_broken.sql': 'CREATE TABLE IF NOT EXISTS extra (id UInt64) ENGINE = MergeTree ORDER BY id;\nALTER TABLE events ADD COLUMN oops NoSuchType;\n',
        });
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        const failure = await rejectionOf(runEventMigrations(db, { dir }));
        expect(failure).toBeInstanceOf(Error);
        expect(failure.message).toMatch(/0002_broken\.sql failed at statement 2 of 2/);
        const recorded = await db.query<{ name: string }>('SELECT name FROM schema_migrations FINAL ORDER BY version');
        expect(recorded.map((r) => r.name)).toEqual(['0001_create_events.sql']);

        // Fixed in place (it was never applied, so it may still change); the idempotent
        // first statement runs again harmlessly.
        await writeFile(
          path.join(dir, '0002_broken.sql'),
          'CREATE TABLE IF NOT EXISTS extra (id UInt64) ENGINE = MergeTree ORDER BY id;\nALTER TABLE events ADD COLUMN IF NOT EXISTS fixed UInt8;\n',
        );
        expect(await runEventMigrations(db, { dir })).toEqual({ applied: ['0002_broken.sql'] });
      });

      it('rejects badly named files', async () => {
        const db = await openExtra(uniqueName('mig'));
        const dir = await migrationDir({ '1_create.sql': created });
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        await expect(runEventMigrations(db, { dir })).rejects.toThrow(/does not match NNNN_description\.sql/);
      });
    });
  });
}
