export type { Db, Queryable, QueryResult } from './db.js';
export { PgDb } from './pg-db.js';
export type { PgDbOptions } from './pg-db.js';
export { PgliteDb } from './pglite-db.js';
export { openDb } from './open-db.js';
export type { OpenDbOptions } from './open-db.js';
export { runMigrations } from './migrate.js';
export type { MigrationRunResult, RunMigrationsOptions } from './migrate.js';
export { MigrationError } from './migration-error.js';
