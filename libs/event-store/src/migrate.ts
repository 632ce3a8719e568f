import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EventStore } from './event-store.js';
import { splitSqlStatements } from './split-sql-statements.js';
import { localTableName, toClusterDdl } from './cluster-ddl.js';

/**
 * Migration runner for the events store.
 *
 * Files: `NNNN_description.sql` in `dir` (four-digit version, applied in version
 * order). A file may hold several statements separated by `;`.
 *
 * ClickHouse has no transactions, so a migration cannot be rolled back half-way:
 * - a migration is recorded in `schema_migrations` only after ALL its statements
 *   succeeded; a failure leaves it unrecorded and the next run retries the file
 *   from its first statement;
 * - therefore write every statement idempotently — `CREATE TABLE IF NOT EXISTS`,
 *   `ALTER TABLE … ADD COLUMN IF NOT EXISTS`, `DROP … IF EXISTS` — so that a
 *   retry after a partial failure converges;
 * - an applied file must never change: a checksum (sha256) mismatch is refused
 *   before anything runs. Add a new file instead.
 *
 * Run migrations from one process at a time (ClickHouse has no lock to take);
 * thanks to idempotent statements a concurrent double run is still harmless.
 */
export interface RunEventMigrationsOptions {
  /** Directory holding the `NNNN_description.sql` files. */
  dir: string;
  /**
   * ClickHouse cluster name (`CLICKHOUSE_CLUSTER`). When set, every statement is
   * rewritten by `toClusterDdl` (Replicated local tables + Distributed tables,
   * `ON CLUSTER`), and the migration record is a replicated table on every node.
   */
  cluster?: string;
}

export interface EventMigrationsResult {
  /** File names applied by this run, in order (empty when up to date). */
  applied: string[];
}

export class EventMigrationError extends Error {
  constructor(
    message: string,
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EventMigrationError';
  }
}

interface MigrationFile {
  version: number;
  name: string;
  checksum: string;
  sql: string;
}

interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

const FILE_NAME = /^(\d{4})_([A-Za-z0-9_-]+)\.sql$/;

// ReplacingMergeTree: a migration recorded twice (two concurrent runners)
// collapses to one row; FINAL on read gives the deduplicated view right away.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version`;

export async function runEventMigrations(store: EventStore, options: RunEventMigrationsOptions): Promise<EventMigrationsResult> {
  const files = await readMigrationFiles(options.dir);
  const placement = placementOf(store, options.cluster);
  for (const ddl of placement(CREATE_MIGRATIONS_TABLE)) await store.command(ddl);
  const record = options.cluster ? localTableName('schema_migrations') : 'schema_migrations';
  const applied = await store.query<AppliedMigration>(`SELECT version, name, checksum FROM ${record} FINAL ORDER BY version`);
  const appliedByVersion = new Map(applied.map((row) => [Number(row.version), row]));

  // Refuse drift before running anything.
  for (const file of files) {
    const done = appliedByVersion.get(file.version);
    if (done && done.checksum !== file.checksum) {
      throw new EventMigrationError(
        `Migration ${file.name} was changed after it was applied (checksum ${done.checksum.slice(0, 12)}… ` +
          `recorded, ${file.checksum.slice(0, 12)}… on disk). Applied migrations are immutable: add a new file instead.`,
        file.name,
      );
    }
  }

  const result: string[] = [];
  for (const file of files) {
    if (appliedByVersion.has(file.version)) continue;
    await applyMigration(store, file, placement, record);
    result.push(file.name);
  }
  return { applied: result };
}

/** How a statement is placed: as written on one server, or rewritten for the cluster. */
function placementOf(store: EventStore, cluster: string | undefined): (statement: string) => string[] {
  if (!cluster) return (statement) => [statement];
  return (statement) => toClusterDdl(statement, { cluster, database: store.database });
}

async function applyMigration(store: EventStore, file: MigrationFile, placement: (statement: string) => string[], record: string): Promise<void> {
  let statements: string[];
  try {
    statements = splitSqlStatements(file.sql).flatMap(placement);
  } catch (error) {
    throw new EventMigrationError(`Migration ${file.name} cannot be split into statements: ${(error as Error).message}`, file.name, { cause: error });
  }
  for (const [index, statement] of statements.entries()) {
    try {
      await store.command(statement);
    } catch (error) {
      throw new EventMigrationError(
        `Migration ${file.name} failed at statement ${index + 1} of ${statements.length}: ${(error as Error).message}. ` +
          'It was not recorded; earlier statements of it may have taken effect (no transactions) and will run again next time.',
        file.name,
        { cause: error },
      );
    }
  }
  await store.insert(record, [{ version: file.version, name: file.name, checksum: file.checksum, applied_at: new Date().toISOString() }]);
}

async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  const seen = new Map<number, string>();
  for (const name of names) {
    const match = FILE_NAME.exec(name);
    if (!match) {
      throw new EventMigrationError(`Migration file ${name} does not match NNNN_description.sql`, name);
    }
    const version = Number(match[1]);
    const clash = seen.get(version);
    if (clash) throw new EventMigrationError(`Migrations ${clash} and ${name} share version ${match[1]}`, name);
    seen.set(version, name);
    const sql = await readFile(path.join(dir, name), 'utf8');
    files.push({ version, name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return files.sort((a, b) => a.version - b.version);
}
