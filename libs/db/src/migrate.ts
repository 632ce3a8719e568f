import { createHash } from 'node:crypto';
import type { Db, Queryable } from './db.js';
import { MigrationError } from './migration-error.js';
import { readMigrationFiles, type MigrationFile } from './migration-files.js';

export interface RunMigrationsOptions {
  /** The service's schema, e.g. `identity`. Created when missing. */
  schema: string;
  /** Directory of `NNNN_description.sql` files. */
  dir: string;
}

export interface MigrationRunResult {
  /** File names applied by this call, in order (empty when already up to date). */
  applied: string[];
}

/** The schema name is interpolated into SQL, so only plain identifiers are accepted. */
const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Applies `dir`'s pending migrations to `schema`, each file in its own transaction
 * together with its `schema_migrations` row, so a failed file leaves nothing behind.
 * Applied files are skipped; an applied file whose content changed is refused.
 *
 * Safe to run from several processes at once: every transaction here first takes a
 * transaction-scoped advisory lock derived from the schema name and re-checks what
 * is applied, so each file runs exactly once.
 *
 * Migration SQL runs with `search_path` set to the schema, so it may use unqualified
 * names. It must not contain BEGIN/COMMIT, nor statements that refuse to run inside a
 * transaction (CREATE INDEX CONCURRENTLY), nor create the schema itself.
 */
export async function runMigrations(db: Db, options: RunMigrationsOptions): Promise<MigrationRunResult> {
  const { schema, dir } = options;
  if (!PLAIN_IDENTIFIER.test(schema)) {
    throw new MigrationError(`Invalid schema name "${schema}": expected a plain identifier (${PLAIN_IDENTIFIER.source})`, '');
  }
  const files = await readMigrationFiles(dir);
  const target: Target = { schema: `"${schema}"`, table: `"${schema}".schema_migrations`, lockKey: advisoryLockKey(schema) };

  // Under the lock too: CREATE … IF NOT EXISTS is not safe against a concurrent creator.
  await db.transaction(async (tx) => {
    await lock(tx, target);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${target.schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${target.table} (
         version text PRIMARY KEY,
         name text NOT NULL,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  });

  const recorded = await db.query<{ version: string; checksum: string }>(`SELECT version, checksum FROM ${target.table}`);
  const pending = pendingMigrations(files, new Map(recorded.rows.map((row) => [row.version, row.checksum])));

  const applied: string[] = [];
  for (const file of pending) {
    if (await applyMigration(db, target, file)) applied.push(file.fileName);
  }
  return { applied };
}

interface Target {
  /** Quoted schema name (validated, so quoting is safe; it also lets reserved words through). */
  schema: string;
  table: string;
  lockKey: string;
}

/** A stable int8 per schema, so different services' migrations do not wait on each other. */
function advisoryLockKey(schema: string): string {
  return createHash('sha256').update(`@sightline/db:migrations:${schema}`).digest().readBigInt64BE(0).toString();
}

async function lock(tx: Queryable, target: Target): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [target.lockKey]);
}

function assertUnchanged(file: MigrationFile, recordedChecksum: string): void {
  if (recordedChecksum !== file.checksum) {
    throw new MigrationError(
      `Migration ${file.fileName} was changed after it was applied (recorded sha256 ${recordedChecksum.slice(0, 12)}…, ` +
        `file now ${file.checksum.slice(0, 12)}…); add a new migration instead of editing an applied one`,
      file.fileName,
    );
  }
}

/** Checks applied files are unchanged and refuses to slot a new file in before an applied one. */
function pendingMigrations(files: MigrationFile[], recorded: Map<string, string>): MigrationFile[] {
  const latestApplied = [...recorded.keys()].sort().at(-1);
  const pending: MigrationFile[] = [];
  for (const file of files) {
    const checksum = recorded.get(file.version);
    if (checksum !== undefined) {
      assertUnchanged(file, checksum);
    } else if (latestApplied !== undefined && file.version < latestApplied) {
      throw new MigrationError(
        `Migration ${file.fileName} is not applied but the later version ${latestApplied} is; renumber it after ${latestApplied}`,
        file.fileName,
      );
    } else {
      pending.push(file);
    }
  }
  return pending;
}

/** Applies one file and records it; false when another process applied it while we waited for the lock. */
async function applyMigration(db: Db, target: Target, file: MigrationFile): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lock(tx, target);
    const existing = await tx.query<{ checksum: string }>(`SELECT checksum FROM ${target.table} WHERE version = $1`, [file.version]);
    const row = existing.rows[0];
    if (row) {
      assertUnchanged(file, row.checksum);
      return false;
    }
    await tx.query(`SET LOCAL search_path TO ${target.schema}`);
    if (file.sql.trim()) {
      try {
        await tx.query(file.sql);
      } catch (err) {
        throw new MigrationError(failureMessage(file, err), file.fileName, { cause: err });
      }
    }
    await tx.query(`INSERT INTO ${target.table} (version, name, checksum) VALUES ($1, $2, $3)`, [file.version, file.name, file.checksum]);
    return true;
  });
}

/** Names the file, the line (from the error's character position) and the SQLSTATE. */
function failureMessage(file: MigrationFile, err: unknown): string {
  const { message, code, position } = (err ?? {}) as { message?: string; code?: string; position?: string | number };
  const offset = Number(position);
  const line = Number.isInteger(offset) && offset > 0 ? ` at line ${file.sql.slice(0, offset - 1).split('\n').length}` : '';
  return `Migration ${file.fileName} failed${line}: ${message ?? String(err)}${code ? ` (SQLSTATE ${code})` : ''}`;
}
