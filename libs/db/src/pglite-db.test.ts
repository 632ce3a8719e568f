import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '@sightline/testkit';
import { describeDbContract } from './testing/index.js';
import { runMigrations } from './migrate.js';
import { PgliteDb } from './pglite-db.js';

// In memory: starting PGlite takes seconds, so the contract shares one instance.
describeDbContract('PgliteDb (in memory)', { open: () => PgliteDb.create() });

describe('PgliteDb', () => {
  describe('on a single connection', () => {
    let db: PgliteDb;
    beforeAll(async () => {
      db = await PgliteDb.create();
      await db.query('CREATE TABLE counter (id int PRIMARY KEY, value int NOT NULL)');
      await db.query('CREATE TABLE log (entry text NOT NULL)');
    });
    afterAll(() => db?.close());

    it('queues concurrent transactions and plain queries instead of interleaving them', async () => {
      await db.query('INSERT INTO counter (id, value) VALUES (1, 0)');

      // Read-modify-write with a pause in the middle: any interleaving loses an update.
      const increment = () =>
        db.transaction(async (tx) => {
          const { rows } = await tx.query<{ value: number }>('SELECT value FROM counter WHERE id = 1');
          await sleep(30);
          await tx.query('UPDATE counter SET value = $1 WHERE id = 1', [rows[0]!.value + 1]);
        });

      // Holds an uncommitted +100 while plain queries are issued, then rolls back.
      let rolledBackStarted!: () => void;
      const started = new Promise<void>((resolve) => (rolledBackStarted = resolve));
      const rolledBack = db
        .transaction(async (tx) => {
          await tx.query('UPDATE counter SET value = value + 100 WHERE id = 1');
          rolledBackStarted();
          await sleep(50);
          throw new Error('undo');
        })
        .catch((err: Error) => err.message);

      await started;
      const [plainRead, plainWrite, ...increments] = await Promise.all([
        // Issued while the transaction above is open: must see committed data only…
        db.query<{ value: number }>('SELECT value FROM counter WHERE id = 1'),
        // …and must not be swept into its rollback.
        db.query('INSERT INTO log (entry) VALUES ($1)', ['plain']),
        increment(),
        increment(),
        increment(),
      ]);

      expect(await rolledBack).toBe('undo');
      expect(plainRead.rows[0]!.value).toBe(0);
      expect(plainWrite.rowCount).toBe(1);
      expect(increments).toHaveLength(3);
      expect((await db.query('SELECT value FROM counter WHERE id = 1')).rows).toEqual([{ value: 3 }]);
      expect((await db.query('SELECT entry FROM log')).rows).toEqual([{ entry: 'plain' }]);
    });
  });

  it('keeps data and applied migrations across close and reopen of its data dir', async () => {
    const tmp = await makeTempDir('sightline-pglite-');
    try {
      const dataDir = path.join(tmp.path, 'pg');
      const migrations = path.join(tmp.path, 'migrations');
      await mkdir(migrations);
      await writeFile(path.join(migrations, '0001_create_visits.sql'), 'CREATE TABLE visits (path text NOT NULL);');

      const first = await PgliteDb.create(dataDir);
      expect((await runMigrations(first, { schema: 'stats', dir: migrations })).applied).toEqual(['0001_create_visits.sql']);
      await first.query('INSERT INTO stats.visits (path) VALUES ($1), ($2)', ['/a', '/b']);
      await first.transaction((tx) => tx.query('INSERT INTO stats.visits (path) VALUES ($1)', ['/c']));
      // Twice on purpose: close() is idempotent.
      await Promise.all([first.close(), first.close()]);

      const reopened = await PgliteDb.create(dataDir);
      try {
        const { rows } = await reopened.query('SELECT path FROM stats.visits ORDER BY path');
        expect(rows).toEqual([{ path: '/a' }, { path: '/b' }, { path: '/c' }]);
        expect((await runMigrations(reopened, { schema: 'stats', dir: migrations })).applied).toEqual([]);
      } finally {
        await reopened.close();
      }
    } finally {
      await tmp.remove();
    }
  });
});
