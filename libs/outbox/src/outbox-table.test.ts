import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS, SUBJECTS } from '@sightline/bus';
import { PgDb, PgliteDb, type Db } from '@sightline/db';
import { backendGate, captureLog, createTestDatabase, tableShape, type TableShape } from '@sightline/testkit';
import { enqueueOutboxMessage, startOutboxRelay } from './outbox-relay.js';
import { ensureOutboxTable, outboxTableDdl } from './outbox-table.js';

// The outbox table as the services' first migrations created it (sites 0001, settings
// 0001), written out by hand from those files: the shared DDL must produce exactly this.
const EXPECTED: TableShape = {
  columns: [
    { name: 'id', type: 'bigint', nullable: 'NO', default: null, identity: 'ALWAYS' },
    { name: 'message_id', type: 'uuid', nullable: 'NO', default: 'gen_random_uuid()', identity: null },
    { name: 'subject', type: 'text', nullable: 'NO', default: null, identity: null },
    { name: 'payload', type: 'jsonb', nullable: 'NO', default: null, identity: null },
    { name: 'created_at', type: 'timestamp with time zone', nullable: 'NO', default: null, identity: null },
    { name: 'published_at', type: 'timestamp with time zone', nullable: 'YES', default: null, identity: null },
    { name: 'attempts', type: 'integer', nullable: 'NO', default: '0', identity: null },
    { name: 'last_error', type: 'text', nullable: 'YES', default: null, identity: null },
  ],
  constraints: [
    { name: 'outbox_pkey', definition: 'PRIMARY KEY (id)' },
    { name: 'outbox_subject_length', definition: 'CHECK (((length(subject) >= 1) AND (length(subject) <= 200)))' },
  ],
  indexes: [
    { name: 'outbox_pkey', definition: 'CREATE UNIQUE INDEX outbox_pkey ON <schema>.outbox USING btree (id)' },
    {
      name: 'outbox_published_at',
      definition: 'CREATE INDEX outbox_published_at ON <schema>.outbox USING btree (published_at) WHERE (published_at IS NOT NULL)',
    },
    { name: 'outbox_unpublished', definition: 'CREATE INDEX outbox_unpublished ON <schema>.outbox USING btree (id) WHERE (published_at IS NULL)' },
  ],
};

const postgres = await backendGate('postgres');

function describeOutboxTable(name: string, open: () => Promise<{ db: Db; dispose(): Promise<void> }>, options: { concurrent: boolean }) {
  describe(`ensureOutboxTable on ${name}`, () => {
    let db: Db;
    let dispose: () => Promise<void>;
    beforeAll(async () => ({ db, dispose } = await open()));
    afterAll(() => dispose?.());

    it('creates the schema, the table and its indexes on a database that has none (a new install)', async () => {
      expect((await tableShape(db, 'fresh_service', 'outbox')).columns).toEqual([]);
      await ensureOutboxTable(db, 'fresh_service');
      expect(await tableShape(db, 'fresh_service', 'outbox')).toEqual(EXPECTED);
    });

    it('is a no-op over an existing outbox: rows and shape are kept', async () => {
      await ensureOutboxTable(db, 'kept_service');
      const now = new Date('2026-03-02T10:00:00.000Z');
      await db.transaction((tx) =>
        enqueueOutboxMessage(
          tx,
          'kept_service',
          SUBJECTS.siteDeleted,
          { site_id: 1, account_id: 1, tracking_key: 'k', deleted_at: '2026-03-02T10:00:00.000Z' },
          now,
        ),
      );
      await ensureOutboxTable(db, 'kept_service');
      if (options.concurrent) await Promise.all([1, 2, 3, 4].map(() => ensureOutboxTable(db, 'kept_service')));
      expect(await tableShape(db, 'kept_service', 'outbox')).toEqual(EXPECTED);
      const { rows } = await db.query<{ subject: string; attempts: number; message_id: string }>(
        'SELECT subject, attempts, message_id FROM kept_service.outbox',
      );
      expect(rows).toEqual([{ subject: 'site.deleted', attempts: 0, message_id: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    });

    if (options.concurrent) {
      it('replicas starting together on a new install each succeed, and one table results', async () => {
        await Promise.all([1, 2, 3, 4, 5].map(() => ensureOutboxTable(db, 'racing_service')));
        expect(await tableShape(db, 'racing_service', 'outbox')).toEqual(EXPECTED);
      });
    }

    it('keeps the subject bound: an empty or 201-character subject is refused, 200 is accepted', async () => {
      await ensureOutboxTable(db, 'bound_service');
      const now = new Date('2026-03-02T10:00:00.000Z');
      // the subject bound is the table's own check: reach it past the typed catalogue
      const enqueue = (subject: string) =>
        db.transaction((tx) =>
          enqueueOutboxMessage(
            tx,
            'bound_service',
            subject as typeof SUBJECTS.siteDeleted,
            { site_id: 1, account_id: 1, tracking_key: 'k', deleted_at: now.toISOString() },
            now,
          ),
        );
      await expect(enqueue('')).rejects.toThrow(/outbox_subject_length/);
      await expect(enqueue('s'.repeat(201))).rejects.toThrow(/outbox_subject_length/);
      await expect(enqueue('s'.repeat(200))).resolves.toBeTypeOf('number');
    });

    it('the relay creates its own table and publishes what is written into it', async () => {
      const bus = new LocalBus();
      await bus.ensureStreams(SIGHTLINE_STREAMS);
      const { log } = captureLog('outbox', 'warn');
      const relay = await startOutboxRelay({ db, bus, clock: () => new Date('2026-03-02T10:00:05.000Z'), log, schema: 'relayed_service', intervalMs: 60_000 });
      try {
        await db.transaction((tx) =>
          enqueueOutboxMessage(
            tx,
            'relayed_service',
            SUBJECTS.siteDeleted,
            { site_id: 7, account_id: 1, tracking_key: 'k', deleted_at: '2026-03-02T10:00:00.000Z' },
            new Date('2026-03-02T10:00:00.000Z'),
          ),
        );
        await relay.flush();
        const { rows } = await db.query<{ published_at: Date; attempts: number }>('SELECT published_at, attempts FROM relayed_service.outbox');
        expect(rows).toEqual([{ published_at: new Date('2026-03-02T10:00:05.000Z'), attempts: 1 }]);
      } finally {
        await relay.stop();
        await bus.close();
      }
    });
  });
}

describeOutboxTable(
  'PGlite',
  async () => {
    const db = await PgliteDb.create();
    return { db, dispose: () => db.close() };
  },
  { concurrent: false },
);

describe.runIf(postgres.available)('PostgreSQL', () => {
  describeOutboxTable(
    'PostgreSQL',
    async () => {
      const database = await createTestDatabase(postgres.url, 'sightline_outbox');
      const db = new PgDb(database.url, { poolSize: 6 });
      return {
        db,
        dispose: async () => {
          await db.close();
          await database.drop();
        },
      };
    },
    { concurrent: true },
  );
});

describe('outboxTableDdl', () => {
  it('refuses a schema name that is not a plain identifier (it is interpolated)', () => {
    for (const bad of ['Sites', 'sites; DROP TABLE x', 'a.b', '']) expect(() => outboxTableDdl(bad)).toThrow(/invalid outbox schema name/);
  });
});
