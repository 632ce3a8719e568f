import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendGate, makeTempDir, uniqueName } from '@sightline/testkit';
import { describeDbContract } from './testing/index.js';
import { runMigrations } from './migrate.js';
import { PgDb } from './pg-db.js';

// Prints why and returns available: false when PostgreSQL is down (throws if backends are required).
const gate = await backendGate('postgres');

describeDbContract('PgDb', { skip: !gate.available, open: async () => new PgDb(gate.url, { poolSize: 4 }) });

describe.skipIf(!gate.available)('PgDb against PostgreSQL', () => {
  const schema = uniqueName('db_pg');
  const migratedSchemas: string[] = [];
  let db: PgDb;
  let other: PgDb;

  beforeAll(async () => {
    db = new PgDb(gate.url, { poolSize: 4 });
    other = new PgDb(gate.url, { poolSize: 2 });
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.accounts (id int PRIMARY KEY, email text NOT NULL)`);
  });

  afterAll(async () => {
    await db?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    for (const name of migratedSchemas) await db?.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    await Promise.all([db?.close(), other?.close()]);
  });

  it('keeps uncommitted rows invisible to another connection until commit', async () => {
    const seenByOther = await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.accounts (id, email) VALUES ($1, $2)`, [1, 'a@example.com']);
      const insideTx = await tx.query(`SELECT id FROM ${schema}.accounts WHERE id = 1`);
      const outside = await other.query(`SELECT id FROM ${schema}.accounts WHERE id = 1`);
      return { inside: insideTx.rowCount, outside: outside.rowCount };
    });
    expect(seenByOther).toEqual({ inside: 1, outside: 0 });
    expect((await other.query(`SELECT email FROM ${schema}.accounts WHERE id = 1`)).rows).toEqual([{ email: 'a@example.com' }]);
  });

  it('runs transactions on separate pooled connections at the same time', async () => {
    // A barrier: each transaction waits, while open, for the other to have written.
    // This only finishes if both transactions are open at once on different connections.
    const written: Array<() => void> = [];
    const both = [2, 3].map(() => new Promise<void>((resolve) => written.push(resolve)));
    await Promise.all(
      [2, 3].map((id, i) =>
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${schema}.accounts (id, email) VALUES ($1, $2)`, [id, `${id}@example.com`]);
          written[i]!();
          await Promise.all(both);
        }),
      ),
    );
    expect((await db.query(`SELECT count(*) AS n FROM ${schema}.accounts WHERE id IN (2, 3)`)).rows).toEqual([{ n: 2 }]);
  });

  it('applies each migration exactly once when separate processes migrate concurrently', async () => {
    const tmp = await makeTempDir('sightline-pg-migrate-');
    const migrationSchema = uniqueName('db_pg_mig');
    migratedSchemas.push(migrationSchema);
    const dbs = [0, 1, 2, 3].map(() => new PgDb(gate.url, { poolSize: 2 }));
    try {
      const dir = path.join(tmp.path, 'migrations');
      await mkdir(dir);
      await writeFile(path.join(dir, '0001_create_runs.sql'), 'CREATE TABLE runs (n serial PRIMARY KEY, note text);');
      // The sleep widens the race window: without the advisory lock both would insert.
      await writeFile(path.join(dir, '0002_slow_insert.sql'), "SELECT pg_sleep(0.2);\nINSERT INTO runs (note) VALUES ('once');");
      await writeFile(path.join(dir, '0003_index.sql'), 'CREATE INDEX runs_note ON runs (note);');

      const results = await Promise.all(dbs.map((instance) => runMigrations(instance, { schema: migrationSchema, dir })));

      expect(results.flatMap((r) => r.applied).sort()).toEqual(['0001_create_runs.sql', '0002_slow_insert.sql', '0003_index.sql']);
      expect((await db.query(`SELECT note FROM ${migrationSchema}.runs`)).rows).toEqual([{ note: 'once' }]);
      expect((await db.query(`SELECT count(*) AS n FROM ${migrationSchema}.schema_migrations`)).rows).toEqual([{ n: 3 }]);
    } finally {
      await Promise.all(dbs.map((instance) => instance.close()));
      await tmp.remove();
    }
  });

  it('close() is idempotent', async () => {
    const extra = new PgDb(gate.url, { poolSize: 1 });
    await extra.ping();
    await Promise.all([extra.close(), extra.close()]);
    await expect(extra.close()).resolves.toBeUndefined();
  });
});
