import { pgliteTestDb as migratedPglite, postgresTestDb as migratedPostgres, type TestDb } from '@sightline/testkit';
import { IDENTITY_MIGRATIONS_DIR, IDENTITY_SCHEMA } from '../migrations-dir.js';

export type { TestDb };
export const MIGRATIONS_DIR = IDENTITY_MIGRATIONS_DIR;
const IDENTITY = { schema: IDENTITY_SCHEMA, dir: IDENTITY_MIGRATIONS_DIR };

/** A PGlite in a temp data dir (`<dir>/pg`, as openDb lays it out, so the admin CLI can open it) with the identity migrations. */
export const pgliteTestDb = (): Promise<TestDb> => migratedPglite(IDENTITY, { onDisk: true });
/** A fresh database on the PostgreSQL server at `serverUrl` with the identity migrations; dropped on dispose. */
export const postgresTestDb = (serverUrl: string): Promise<TestDb> => migratedPostgres(serverUrl, IDENTITY, { poolSize: 20 });
