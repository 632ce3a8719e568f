/**
 * Test support, not shipped: the behaviour every `Db` adapter must share, written
 * once and run against each real database from its own test file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, uniqueName } from '@sightline/testkit';
import type { Db, Queryable } from '../db.js';
import { runMigrations } from '../migrate.js';
import { MigrationError } from '../migration-error.js';

export interface DbContractTarget {
  /** Opens the database under test; called once per suite. */
  open: () => Promise<Db>;
  /** Skip the whole suite (backend unavailable; the gate already said why). */
  skip?: boolean;
}

export function describeDbContract(name: string, target: DbContractTarget): void {
  describe.skipIf(target.skip ?? false)(`Db contract: ${name}`, () => {
    let db: Db;
    let tmp: { path: string; remove: () => Promise<void> };
    // Unique per run: the PostgreSQL server is shared with other runs and services.
    const schema = uniqueName('db_contract');
    const createdSchemas = [schema];

    beforeAll(async () => {
      db = await target.open();
      tmp = await makeTempDir('sightline-db-contract-');
      await db.query(`CREATE SCHEMA ${schema}`);
      await db.query(`CREATE TABLE ${schema}.notes (id int PRIMARY KEY, body text NOT NULL)`);
    });

    afterAll(async () => {
      if (db) {
        for (const s of createdSchemas) await db.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
        await db.close();
      }
      await tmp?.remove();
    });

    /** A fresh schema + migrations directory for one migration test. */
    async function migrationFixture(files: Record<string, string>) {
      const migrationSchema = uniqueName('db_mig');
      createdSchemas.push(migrationSchema);
      const dir = path.join(tmp.path, migrationSchema);
      const write = async (more: Record<string, string>) => {
        for (const [file, sql] of Object.entries(more)) await writeFile(path.join(dir, file), sql);
      };
      await mkdir(dir);
      await write(files);
      const migrate = () => runMigrations(db, { schema: migrationSchema, dir });
      const recorded = async () =>
        (await db.query<{ version: string }>(`SELECT version FROM ${migrationSchema}.schema_migrations ORDER BY version`)).rows.map((r) => r.version);
      return { schema: migrationSchema, dir, write, migrate, recorded };
    }

    describe('query', () => {
      it('round-trips text, int, jsonb, timestamptz and null parameters', async () => {
        const at = new Date('2024-05-06T07:08:09.123Z');
        const doc = { page: '/pricing', tags: ['a', 'b'], nested: { n: 1.5, none: null } };
        const { rows, rowCount } = await db.query<{ t: string; i: number; j: unknown; ts: Date; n: null }>(
          'SELECT $1::text AS t, $2::int AS i, $3::jsonb AS j, $4::timestamptz AS ts, $5::text AS n',
          ['héllo ✓', 42, doc, at, null],
        );
        expect(rowCount).toBe(1);
        expect(rows).toHaveLength(1);
        const row = rows[0]!;
        expect(row.t).toBe('héllo ✓');
        expect(row.i).toBe(42);
        expect(row.j).toEqual(doc);
        expect(row.ts).toBeInstanceOf(Date);
        expect(row.ts.getTime()).toBe(at.getTime());
        expect(row.n).toBeNull();
      });

      it('accepts a JSON string for jsonb (the portable way to pass a top-level array)', async () => {
        const { rows } = await db.query<{ j: unknown }>('SELECT $1::jsonb AS j', [JSON.stringify([1, 'two'])]);
        expect(rows[0]!.j).toEqual([1, 'two']);
      });

      it('parses int8 as number (bigint beyond 2^53), numeric and date as strings', async () => {
        const { rows } = await db.query<{ c: unknown; big: unknown; neg: unknown; n: unknown; d: unknown }>(
          `SELECT count(*) AS c, 9007199254740993::int8 AS big, (-42)::int8 AS neg, 1.50::numeric AS n, '2024-03-01'::date AS d
             FROM generate_series(1, 3)`,
        );
        expect(rows[0]).toEqual({ c: 3, big: 9007199254740993n, neg: -42, n: '1.50', d: '2024-03-01' });
      });

      it('parses arrays of those types like their elements, and interval as text', async () => {
        const { rows } = await db.query(
          `SELECT ARRAY[1, NULL, 9007199254740993]::int8[] AS ids, '{{1.10,2},{3,4}}'::numeric[] AS grid,
                  ARRAY['2024-03-01'::date] AS days, interval '1 day 2 hours' AS span`,
        );
        expect(rows[0]).toEqual({
          ids: [1, null, 9007199254740993n],
          grid: [
            ['1.10', '2'],
            ['3', '4'],
          ],
          days: ['2024-03-01'],
          span: '1 day 02:00:00',
        });
      });

      it('reports affected rows as rowCount', async () => {
        const inserted = await db.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2), ($3, $4)`, [100, 'a', 101, 'b']);
        expect(inserted.rowCount).toBe(2);
        const updated = await db.query(`UPDATE ${schema}.notes SET body = $1 WHERE id >= $2`, ['z', 100]);
        expect(updated.rowCount).toBe(2);
        const deleted = await db.query(`DELETE FROM ${schema}.notes WHERE id >= $1`, [100]);
        expect(deleted.rowCount).toBe(2);
      });

      it('runs several statements when there are no params and answers with the last', async () => {
        const { rows } = await db.query<{ v: number }>('SELECT 1 AS v; SELECT 2 AS v');
        expect(rows).toEqual([{ v: 2 }]);
      });

      it('surfaces a unique violation with code 23505', async () => {
        await db.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [1, 'first']);
        await expect(db.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [1, 'again'])).rejects.toMatchObject({
          code: '23505',
        });
      });

      it('does not carry parameter values on errors', async () => {
        const err = await db.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [1, 'secret@example.com']).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: '23505' });
        expect(JSON.stringify(err)).not.toContain('secret@example.com');
      });

      it('ping resolves', async () => {
        await expect(db.ping()).resolves.toBeUndefined();
      });
    });

    describe('transaction', () => {
      it('commits when the callback resolves and returns its value', async () => {
        const result = await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [10, 'ten']);
          await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [11, 'eleven']);
          return (await tx.query<{ n: number }>(`SELECT count(*) AS n FROM ${schema}.notes WHERE id IN (10, 11)`)).rows[0]!.n;
        });
        expect(result).toBe(2);
        const { rows } = await db.query(`SELECT body FROM ${schema}.notes WHERE id IN (10, 11) ORDER BY id`);
        expect(rows).toEqual([{ body: 'ten' }, { body: 'eleven' }]);
      });

      it('rolls back when the callback throws and rethrows the same error', async () => {
        const boom = new Error('boom');
        await expect(
          db.transaction(async (tx) => {
            await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [20, 'never']);
            throw boom;
          }),
        ).rejects.toBe(boom);
        const { rows } = await db.query(`SELECT id FROM ${schema}.notes WHERE id = $1`, [20]);
        expect(rows).toEqual([]);
      });

      it('rolls back on a failing statement, surfacing its code', async () => {
        await expect(
          db.transaction(async (tx) => {
            await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [30, 'thirty']);
            await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [30, 'duplicate']);
          }),
        ).rejects.toMatchObject({ code: '23505' });
        expect((await db.query(`SELECT id FROM ${schema}.notes WHERE id = $1`, [30])).rows).toEqual([]);
      });

      it('refuses to commit when a failed statement was swallowed (25P02)', async () => {
        await expect(
          db.transaction(async (tx) => {
            await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [40, 'forty']);
            await tx.query('SELECT * FROM no_such_table').catch(() => undefined);
          }),
        ).rejects.toMatchObject({ code: '25P02' });
        expect((await db.query(`SELECT id FROM ${schema}.notes WHERE id = $1`, [40])).rows).toEqual([]);
      });

      it('rejects db.query() inside the callback instead of running it outside the transaction', async () => {
        await expect(
          db.transaction(async (tx) => {
            await tx.query(`INSERT INTO ${schema}.notes (id, body) VALUES ($1, $2)`, [50, 'fifty']);
            await db.query('SELECT 1');
          }),
        ).rejects.toThrow(/use the tx handle/);
        expect((await db.query(`SELECT id FROM ${schema}.notes WHERE id = $1`, [50])).rows).toEqual([]);
      });

      it('rejects a tx handle used after its transaction ended', async () => {
        let leaked: Queryable | undefined;
        await db.transaction(async (tx) => {
          leaked = tx;
        });
        await expect(leaked!.query('SELECT 1')).rejects.toThrow(/closed/);
      });
    });

    describe('runMigrations', () => {
      const createItems = 'CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL);\n';
      const seedItems = "INSERT INTO items (id, label) VALUES (1, 'one');\n";

      it('applies files in order once, with unqualified names in the schema', async () => {
        const m = await migrationFixture({ '0002_seed_items.sql': seedItems, '0001_create_items.sql': createItems, 'README.md': 'ignored' });

        expect(await m.migrate()).toEqual({ applied: ['0001_create_items.sql', '0002_seed_items.sql'] });
        expect((await db.query(`SELECT id, label FROM ${m.schema}.items`)).rows).toEqual([{ id: 1, label: 'one' }]);
        const { rows } = await db.query<{ version: string; name: string; checksum: string; applied_at: Date }>(
          `SELECT version, name, checksum, applied_at FROM ${m.schema}.schema_migrations ORDER BY version`,
        );
        expect(rows.map((r) => [r.version, r.name])).toEqual([
          ['0001', 'create_items'],
          ['0002', 'seed_items'],
        ]);
        expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(rows[0]!.applied_at).toBeInstanceOf(Date);

        expect(await m.migrate()).toEqual({ applied: [] });
        expect((await db.query(`SELECT count(*) AS n FROM ${m.schema}.items`)).rows).toEqual([{ n: 1 }]);

        await m.write({ '0003_more_items.sql': "INSERT INTO items (id, label) VALUES (2, 'two');" });
        expect(await m.migrate()).toEqual({ applied: ['0003_more_items.sql'] });
      });

      it('refuses an applied file whose content changed, applying nothing after it', async () => {
        const m = await migrationFixture({ '0001_create_items.sql': createItems });
        await m.migrate();
        await m.write({ '0001_create_items.sql': `${createItems}-- edited\n`, '0002_seed_items.sql': seedItems });

        const err = await m.migrate().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(MigrationError);
        expect(err).toMatchObject({ file: '0001_create_items.sql' });
        expect((err as Error).message).toMatch(/0001_create_items\.sql was changed after it was applied/);
        expect(await m.recorded()).toEqual(['0001']);
      });

      it('leaves nothing of a failing file behind and stops the run', async () => {
        const m = await migrationFixture({
          '0001_create_items.sql': createItems,
          '0002_broken.sql': 'CREATE TABLE half_done (id int);\nINSERT INTO no_such_table VALUES (1);\n',
          '0003_after.sql': 'CREATE TABLE after_broken (id int);',
        });

        const err = await m.migrate().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(MigrationError);
        expect(err).toMatchObject({ file: '0002_broken.sql', cause: { code: '42P01' } });
        expect((err as Error).message).toMatch(/Migration 0002_broken\.sql failed at line 2: .*no_such_table.*\(SQLSTATE 42P01\)/);

        expect(await m.recorded()).toEqual(['0001']);
        const tables = await db.query<{ half: string | null; after: string | null }>(`SELECT to_regclass($1)::text AS half, to_regclass($2)::text AS after`, [
          `${m.schema}.half_done`,
          `${m.schema}.after_broken`,
        ]);
        expect(tables.rows[0]).toEqual({ half: null, after: null });

        // Fixed before it ever applied (so no checksum is recorded): the run resumes.
        await m.write({ '0002_broken.sql': 'CREATE TABLE half_done (id int);\n' });
        expect(await m.migrate()).toEqual({ applied: ['0002_broken.sql', '0003_after.sql'] });
      });

      it('applies each file once when called concurrently on the same Db', async () => {
        const m = await migrationFixture({
          '0001_create_items.sql': createItems,
          '0002_seed_items.sql': seedItems,
          '0003_more.sql': "INSERT INTO items (id, label) VALUES (2, 'two');",
        });
        const runs = await Promise.all([m.migrate(), m.migrate(), m.migrate()]);
        expect(runs.flatMap((r) => r.applied).sort()).toEqual(['0001_create_items.sql', '0002_seed_items.sql', '0003_more.sql']);
        expect((await db.query(`SELECT count(*) AS n FROM ${m.schema}.items`)).rows).toEqual([{ n: 2 }]);
      });

      it('refuses a new file numbered before an applied one', async () => {
        const m = await migrationFixture({ '0002_seed_later.sql': createItems });
        await m.migrate();
        await m.write({ '0001_slipped_in.sql': seedItems });
        await expect(m.migrate()).rejects.toThrow(/0001_slipped_in\.sql is not applied but the later version 0002 is/);
      });

      it('rejects a schema name that is not a plain identifier', async () => {
        for (const bad of ['Identity', 'a-b', 'x; DROP SCHEMA public', '1abc', '']) {
          await expect(runMigrations(db, { schema: bad, dir: tmp.path })).rejects.toThrow(/Invalid schema name/);
        }
      });
    });
  });
}
