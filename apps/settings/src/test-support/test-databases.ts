import { pgliteTestDb as migratedPglite, postgresTestDb as migratedPostgres, type TestDb } from '@sightline/testkit';
import { SETTINGS_MIGRATIONS_DIR, SETTINGS_SCHEMA } from '../migrations-dir.js';

export type { TestDb };
const SETTINGS = { schema: SETTINGS_SCHEMA, dir: SETTINGS_MIGRATIONS_DIR };

/** An in-memory PGlite with the settings migrations. */
export const pgliteTestDb = (): Promise<TestDb> => migratedPglite(SETTINGS);
/** A fresh database on the PostgreSQL server at `serverUrl` with the settings migrations; dropped on dispose. */
export const postgresTestDb = (serverUrl: string): Promise<TestDb> => migratedPostgres(serverUrl, SETTINGS, { poolSize: 10 });
