import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from './db.js';
import { PgDb } from './pg-db.js';
import { PgliteDb } from './pglite-db.js';

export interface OpenDbOptions {
  /** `postgres://` or `postgresql://` URL → PostgreSQL. Empty counts as absent. */
  databaseUrl?: string;
  /** Without a URL: the embedded PGlite lives in `<dataDir>/pg`. */
  dataDir?: string;
  /** PostgreSQL pool size; ignored for PGlite (one connection). */
  poolSize?: number;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** The one place deployment config picks an adapter: external PostgreSQL or embedded PGlite. */
export async function openDb(options: OpenDbOptions): Promise<Db> {
  const { databaseUrl, dataDir, poolSize } = options;
  if (databaseUrl) {
    // A URL that is set but not Postgres is a config mistake; falling back to PGlite would hide it.
    if (!POSTGRES_URL.test(databaseUrl)) {
      throw new Error(`databaseUrl must start with postgres:// or postgresql:// (got "${databaseUrl.split(':')[0]}:…")`);
    }
    return new PgDb(databaseUrl, poolSize === undefined ? {} : { poolSize });
  }
  if (!dataDir) {
    // Never default to in-memory here: a missing setting would silently lose every write.
    throw new Error('openDb needs either databaseUrl (postgres://…) or dataDir (for the embedded PGlite)');
  }
  const pgliteDir = path.join(dataDir, 'pg');
  await mkdir(pgliteDir, { recursive: true });
  return PgliteDb.create(pgliteDir);
}
