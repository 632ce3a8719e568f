import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { MigrationError } from './migration-error.js';

export interface MigrationFile {
  /** `0003`: the four digits, also the primary key in schema_migrations. */
  version: string;
  /** `add_sessions`: the part after the underscore. */
  name: string;
  /** `0003_add_sessions.sql` */
  fileName: string;
  sql: string;
  /** sha256 (hex) of the file's bytes: an applied migration must never change. */
  checksum: string;
}

const MIGRATION_FILE_NAME = /^(\d{4})_([A-Za-z0-9][A-Za-z0-9_-]*)\.sql$/;

/**
 * Reads `dir`'s migrations in version order. Any `.sql` file that does not follow
 * `NNNN_description.sql`, and two files sharing a version, are errors: a silently
 * skipped or ambiguous migration is worse than a failed start. Other files are ignored.
 */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new MigrationError(`Cannot read migration directory ${dir}: ${(err as Error).message}`, '', { cause: err });
  }

  const byVersion = new Map<string, MigrationFile>();
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.sql')) continue;
    const match = MIGRATION_FILE_NAME.exec(entry.name);
    if (!match) {
      throw new MigrationError(`Migration file ${entry.name} in ${dir} is not named NNNN_description.sql`, entry.name);
    }
    const [, version = '', name = ''] = match;
    const clash = byVersion.get(version);
    if (clash) {
      throw new MigrationError(`Migrations ${clash.fileName} and ${entry.name} share version ${version}`, entry.name);
    }
    const bytes = await readFile(path.join(dir, entry.name));
    byVersion.set(version, {
      version,
      name,
      fileName: entry.name,
      sql: bytes.toString('utf8'),
      checksum: createHash('sha256').update(bytes).digest('hex'),
    });
  }
  return [...byVersion.values()].sort((a, b) => a.version.localeCompare(b.version));
}
