import { pgliteTestDb as migratedPglite, postgresTestDb as migratedPostgres, type TestDb } from '@sightline/testkit';
import { SITES_MIGRATIONS_DIR, SITES_SCHEMA } from '../migrations-dir.js';

export type { TestDb };
const SITES = { schema: SITES_SCHEMA, dir: SITES_MIGRATIONS_DIR };

/** An in-memory PGlite with the sites migrations. */
export const pgliteTestDb = (): Promise<TestDb> => migratedPglite(SITES);
/** A fresh database on the PostgreSQL server at `serverUrl` with the sites migrations; dropped on dispose. */
export const postgresTestDb = (serverUrl: string): Promise<TestDb> => migratedPostgres(serverUrl, SITES, { poolSize: 25 });
