import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@sightline/testkit';
import { MigrationError } from './migration-error.js';
import { readMigrationFiles } from './migration-files.js';

describe('readMigrationFiles', () => {
  let tmp: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir('sightline-migration-files-');
  });
  afterEach(() => tmp.remove());

  const write = (files: Record<string, string>) => Promise.all(Object.entries(files).map(([name, sql]) => writeFile(path.join(tmp.path, name), sql)));

  it('returns .sql files in version order with name and sha256, ignoring other entries', async () => {
    await write({ '0010_later.sql': 'SELECT 10;', '0002_add-sessions.sql': 'SELECT 2;', 'README.md': '# notes' });
    await mkdir(path.join(tmp.path, '0003_a_directory.sql'));

    const files = await readMigrationFiles(tmp.path);

    expect(files.map((f) => [f.version, f.name, f.fileName])).toEqual([
      ['0002', 'add-sessions', '0002_add-sessions.sql'],
      ['0010', 'later', '0010_later.sql'],
    ]);
    expect(files[0]!.sql).toBe('SELECT 2;');
    expect(files[0]!.checksum).toBe(createHash('sha256').update('SELECT 2;').digest('hex'));
  });

  it.each(['1_init.sql', '00001_init.sql', '0001-init.sql', '0001_.sql', 'init.sql'])('rejects the misnamed file %s', async (name) => {
    await write({ [name]: 'SELECT 1;' });
    await expect(readMigrationFiles(tmp.path)).rejects.toThrow(new RegExp(`${name.replace('.', '\\.')} .*NNNN_description\\.sql`));
  });

  it('rejects two files sharing a version', async () => {
    await write({ '0001_a.sql': '', '0001_b.sql': '' });
    const err = await readMigrationFiles(tmp.path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toMatch(/0001_a\.sql and 0001_b\.sql share version 0001|0001_b\.sql and 0001_a\.sql share version 0001/);
  });

  it('names the directory when it cannot be read', async () => {
    const missing = path.join(tmp.path, 'missing');
    await expect(readMigrationFiles(missing)).rejects.toThrow(`Cannot read migration directory ${missing}`);
  });

  it('returns nothing for an empty directory', async () => {
    expect(await readMigrationFiles(tmp.path)).toEqual([]);
  });
});
