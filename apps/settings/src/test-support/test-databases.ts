import { PgDb, PgliteDb, runMigrations, type Db } from '@sightline/db';
import { createTestDatabase } from '@sightline/testkit';
import { SETTINGS_MIGRATIONS_DIR, SETTINGS_SCHEMA } from '../migrations-dir.js';

export interface TestDb {
  db: Db;
  dispose(): Promise<void>;
}

/** An in-memory PGlite, migrated. */
export async function pgliteTestDb(): Promise<TestDb> {
  const db = await PgliteDb.create();
  await runMigrations(db, { schema: SETTINGS_SCHEMA, dir: SETTINGS_MIGRATIONS_DIR });
  return { db, dispose: () => db.close() };
}

/** A fresh database on the PostgreSQL server at `serverUrl`, migrated; dropped on dispose. */
export async function postgresTestDb(serverUrl: string): Promise<TestDb> {
  const database = await createTestDatabase(serverUrl, 'sightline_settings');
  const db = new PgDb(database.url, { poolSize: 10 });
  await runMigrations(db, { schema: SETTINGS_SCHEMA, dir: SETTINGS_MIGRATIONS_DIR });
  return {
    db,
    dispose: async () => {
      await db.close();
      await database.drop();
    },
  };
}
