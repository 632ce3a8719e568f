import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOutboxTable, enqueueOutboxMessage } from '@sightline/outbox';
import { backendGate, tableShape } from '@sightline/testkit';
import { SITES_SCHEMA } from '../migrations-dir.js';
import { pgliteTestDb, postgresTestDb, type TestDb } from '../test-support/test-databases.js';

// An install made before libs/outbox owned the table has sites.outbox from this
// service's 0001 migration (kept: applied migrations are never edited). The shared DDL
// must be exactly that table, so over such an install it changes nothing.
const postgres = await backendGate('postgres');

for (const [name, open] of [
  ['PGlite', pgliteTestDb],
  ['PostgreSQL', () => postgresTestDb(postgres.url)],
] as const) {
  describe.runIf(name === 'PGlite' || postgres.available)(`sites.outbox of an existing install, on ${name}`, () => {
    let testDb: TestDb;
    beforeAll(async () => void (testDb = await open()));
    afterAll(() => testDb?.dispose());

    it('is the table libs/outbox creates, and ensureOutboxTable over it keeps it and its rows', async () => {
      const { db } = testDb;
      await ensureOutboxTable(db, 'outbox_reference');
      const reference = await tableShape(db, 'outbox_reference', 'outbox');
      expect(reference.columns).toHaveLength(8);
      expect(await tableShape(db, SITES_SCHEMA, 'outbox')).toEqual(reference);

      const id = await db.transaction((tx) =>
        enqueueOutboxMessage(
          tx,
          SITES_SCHEMA,
          'site.deleted',
          { site_id: 3, account_id: 1, tracking_key: 'k', deleted_at: '2026-03-02T10:00:00.000Z' },
          new Date('2026-03-02T10:00:00.000Z'),
        ),
      );
      await ensureOutboxTable(db, SITES_SCHEMA);
      expect(await tableShape(db, SITES_SCHEMA, 'outbox')).toEqual(reference);
      const { rows } = await db.query<{ id: number; subject: string }>(`SELECT id, subject FROM sites.outbox`);
      expect(rows).toEqual([{ id, subject: 'site.deleted' }]);
    });
  });
}
