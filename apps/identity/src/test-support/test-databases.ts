import path from 'node:path';
import { PgDb, PgliteDb, runMigrations, type Db } from '@sightline/db';
import { createTestDatabase, makeTempDir } from '@sightline/testkit';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../migrations');

export interface TestDb {
  db: Db;
  /** where the CLI finds it: a PostgreSQL URL, or a data dir whose `pg/` holds the PGlite */
  location: { databaseUrl?: string; dataDir?: string };
  dispose(): Promise<void>;
}

/** A PGlite in a temp data dir (`<dir>/pg`, as openDb lays it out), migrated. */
export async function pgliteTestDb(): Promise<TestDb> {
  const dir = await makeTempDir('sightline-identity-');
  const db = await PgliteDb.create(path.join(dir.path, 'pg'));
  await runMigrations(db, { schema: 'identity', dir: MIGRATIONS_DIR });
  return {
    db,
    location: { dataDir: dir.path },
    dispose: async () => {
      await db.close();
      await dir.remove();
    },
  };
}

/** A fresh database on the PostgreSQL server at `serverUrl` (the schema name is fixed), migrated; dropped on dispose. */
export async function postgresTestDb(serverUrl: string): Promise<TestDb> {
  const database = await createTestDatabase(serverUrl, 'sightline_identity');
  const db = new PgDb(database.url, { poolSize: 20 });
  await runMigrations(db, { schema: 'identity', dir: MIGRATIONS_DIR });
  return {
    db,
    location: { databaseUrl: database.url },
    dispose: async () => {
      await db.close();
      await database.drop();
    },
  };
}
