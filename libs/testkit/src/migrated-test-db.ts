import path from 'node:path';
import { PgDb, PgliteDb, runMigrations, type Db } from '@sightline/db';
import { createTestDatabase } from './test-database.js';
import { makeTempDir } from './temp-dir.js';

/** A service's migrations: its PostgreSQL schema and the folder of its NNNN_name.sql files. */
export interface ServiceMigrations {
  schema: string;
  dir: string;
}

export interface TestDb {
  db: Db;
  /** where another process finds it: a PostgreSQL URL, or a data dir whose `pg/` holds the PGlite (in-memory: neither) */
  location: { databaseUrl?: string; dataDir?: string };
  dispose(): Promise<void>;
}

/**
 * A PGlite with the service's migrations applied: in memory, or with `onDisk` in a
 * temp data dir laid out as openDb does (`<dir>/pg`), for tests that start a second process on it.
 */
export async function pgliteTestDb(migrations: ServiceMigrations, options: { onDisk?: boolean } = {}): Promise<TestDb> {
  const dir = options.onDisk ? await makeTempDir(`sightline-${migrations.schema}-`) : undefined;
  const db = await PgliteDb.create(dir ? path.join(dir.path, 'pg') : undefined);
  try {
    await runMigrations(db, migrations);
  } catch (error) {
    await db.close();
    await dir?.remove();
    throw error;
  }
  return {
    db,
    location: dir ? { dataDir: dir.path } : {},
    dispose: async () => {
      await db.close();
      await dir?.remove();
    },
  };
}

/**
 * A fresh database on the PostgreSQL server at `serverUrl` (a service's schema name is
 * fixed, so each run gets its own database) with the migrations applied; dropped on dispose.
 */
export async function postgresTestDb(serverUrl: string, migrations: ServiceMigrations, options: { poolSize?: number } = {}): Promise<TestDb> {
  const database = await createTestDatabase(serverUrl, `sightline_${migrations.schema}`);
  const db = new PgDb(database.url, { poolSize: options.poolSize ?? 10 });
  try {
    await runMigrations(db, migrations);
  } catch (error) {
    await db.close();
    await database.drop();
    throw error;
  }
  return {
    db,
    location: { databaseUrl: database.url },
    dispose: async () => {
      await db.close();
      await database.drop();
    },
  };
}
