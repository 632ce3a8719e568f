import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDb, runMigrations } from '@sightline/db';
import { backendGate, createTestDatabase, DAY, movableClock, type TestDatabase } from '@sightline/testkit';
import { INGEST_MIGRATIONS_DIR, INGEST_SCHEMA } from '../migrations-dir.js';
import { DailySalts } from './daily-salts.js';
import { visitorHash } from './visitor-hash.js';
import { VisitorIds } from './visitor-ids.js';

const gate = await backendGate('postgres');
const NOW = '2026-11-23T23:30:00.000Z';

describe.skipIf(!gate.available)('VisitorIds on PostgreSQL salts', () => {
  let testDb: TestDatabase;
  let db: PgDb;

  beforeAll(async () => {
    testDb = await createTestDatabase(gate.url, 'sightline_visitor_ids');
    db = new PgDb(testDb.url);
    await runMigrations(db, { schema: INGEST_SCHEMA, dir: INGEST_MIGRATIONS_DIR });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('memoised ids equal the HMACs under the stored salts, and a salt rotation makes a memoised day stale', async () => {
    const clock = movableClock(NOW);
    const salts = new DailySalts(db, clock.clock);
    const ids = new VisitorIds(salts, clock.clock);
    const at = Date.parse(NOW);
    expect(ids.peek(at, 7, '203.0.113.9', 'UA/1')).toBeUndefined();

    const first = await ids.of(at, 7, '203.0.113.9', 'UA/1');
    const today = (await salts.forDay('2026-11-23'))!;
    const yesterday = (await salts.forDay('2026-11-22'))!;
    expect(first).toEqual([visitorHash(today, 7, '203.0.113.9', 'UA/1'), visitorHash(yesterday, 7, '203.0.113.9', 'UA/1')]);
    // memoised: the same array, synchronously; other visitors and sites are not
    expect(ids.peek(at, 7, '203.0.113.9', 'UA/1')).toBe(first);
    expect(ids.peek(at, 8, '203.0.113.9', 'UA/1')).toBeUndefined();
    expect(await ids.of(at, 7, '203.0.113.10', 'UA/1')).not.toEqual(first);

    // two midnights later the event's day has no salt any more: nothing memoised may answer for it
    clock.advance(2 * DAY);
    expect(ids.peek(at, 7, '203.0.113.9', 'UA/1')).toBeUndefined();
    expect(await ids.of(at, 7, '203.0.113.9', 'UA/1')).toBeNull();
  });
});
