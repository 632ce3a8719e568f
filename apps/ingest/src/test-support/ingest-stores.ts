import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PgDb, runMigrations } from '@sightline/db';
import { ChdbEventStore, runEventMigrations, type EventStore } from '@sightline/event-store';
import { createTestDatabase, uniqueName } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR, INGEST_MIGRATIONS_DIR, INGEST_SCHEMA } from '../migrations-dir.js';

/** TEST SUPPORT: ingest's real stores, migrated — a PostgreSQL database of its own (salts) and chDB in a temporary directory. */
export interface IngestTestStores {
  db: PgDb;
  store: EventStore;
  close(): Promise<void>;
}

export async function openIngestTestStores(pgUrl: string, name: string): Promise<IngestTestStores> {
  const root = await mkdtemp(path.join(os.tmpdir(), `sightline-${name}-`));
  const testDb = await createTestDatabase(pgUrl, `sightline_${name.replace(/-/g, '_')}`);
  const db = new PgDb(testDb.url);
  await runMigrations(db, { schema: INGEST_SCHEMA, dir: INGEST_MIGRATIONS_DIR });
  const store = await ChdbEventStore.open({ path: path.join(root, 'events'), database: uniqueName(name.replace(/-/g, '_')) });
  await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
  return {
    db,
    store,
    close: async () => {
      await store.close();
      await db.close();
      await testDb.drop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
