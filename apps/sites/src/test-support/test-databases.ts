import { PgDb, PgliteDb, runMigrations, type Db } from '@sightline/db';
import { createTestDatabase } from '@sightline/testkit';
import { SITES_MIGRATIONS_DIR, SITES_SCHEMA } from '../migrations-dir.js';

export interface TestDb {
  db: Db;
  dispose(): Promise<void>;
}

/** An in-memory PGlite, migrated. */
export async function pgliteTestDb(): Promise<TestDb> {
  const db = await PgliteDb.create();
  await runMigrations(db, { schema: SITES_SCHEMA, dir: SITES_MIGRATIONS_DIR });
  return { db, dispose: () => db.close() };
}

/** A fresh database on the PostgreSQL server at `serverUrl` (the schema name is fixed), migrated; dropped on dispose. */
export async function postgresTestDb(serverUrl: string): Promise<TestDb> {
  const database = await createTestDatabase(serverUrl, 'sightline_sites');
  const db = new PgDb(database.url, { poolSize: 25 });
  await runMigrations(db, { schema: SITES_SCHEMA, dir: SITES_MIGRATIONS_DIR });
  return {
    db,
    dispose: async () => {
      await db.close();
      await database.drop();
    },
  };
}
