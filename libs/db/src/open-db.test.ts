import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendGate, makeTempDir } from '@sightline/testkit';
import { openDb } from './open-db.js';
import { PgDb } from './pg-db.js';
import { PgliteDb } from './pglite-db.js';

const gate = await backendGate('postgres');

describe('openDb', () => {
  it('opens PGlite under <dataDir>/pg, creating the directories', async () => {
    const tmp = await makeTempDir('sightline-open-db-');
    try {
      const dataDir = path.join(tmp.path, 'not', 'yet', 'there');
      const db = await openDb({ dataDir });
      try {
        expect(db).toBeInstanceOf(PgliteDb);
        expect(db.kind).toBe('pglite');
        await db.ping();
        expect((await stat(path.join(dataDir, 'pg'))).isDirectory()).toBe(true);
      } finally {
        await db.close();
      }
    } finally {
      await tmp.remove();
    }
  });

  it.skipIf(!gate.available)('opens a PostgreSQL pool for a postgres:// URL (dataDir ignored)', async () => {
    const db = await openDb({ databaseUrl: gate.url, dataDir: '/nonexistent', poolSize: 2 });
    try {
      expect(db).toBeInstanceOf(PgDb);
      expect(db.kind).toBe('postgres');
      await db.ping();
    } finally {
      await db.close();
    }
  });

  it('rejects a URL that is not PostgreSQL without echoing it', async () => {
    const err = await openDb({ databaseUrl: 'mysql://root:hunter2@db/x', dataDir: '/tmp' }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/postgres:\/\//);
    expect((err as Error).message).not.toContain('hunter2');
  });

  it('refuses to guess when neither databaseUrl nor dataDir is given', async () => {
    await expect(openDb({ databaseUrl: '' })).rejects.toThrow(/databaseUrl .* or dataDir/);
  });
});
