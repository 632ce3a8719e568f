import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, encodeRows, runEventMigrations } from '@sightline/event-store';
import { EVENTS_TABLE, SESSIONS_TABLE } from '@sightline/events-schema';
import { buildSeedRows } from '@sightline/events-schema/testing';
import { makeTempDir } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR } from '../migrations-dir.js';

/**
 * A batch whose insert was stored although its answer was lost is retried with the same
 * `insert_deduplication_token` (batch-writer.ts): the engine must skip it, on the table and
 * on the roll-ups its materialized views feed (migration 0011 keeps the window).
 */
describe('a retried insert with the batch token is stored once', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let store: ChdbEventStore;
  const rows = buildSeedRows(
    [
      { visitor: 1, events: [{ at: '2026-06-01 10:00:00' }, { at: '2026-06-01 10:05:00', path: '/b' }] },
      { visitor: 2, events: [{ at: '2026-06-01 11:00:00' }] },
    ],
    { siteId: 7 },
  );
  const counts = async () =>
    (
      await store.query<{ events: number; sessions: number; pageviews: number; rolled: number }>(
        `SELECT (SELECT count() FROM events WHERE site_id = 7) AS events,
                (SELECT sum(sign) FROM sessions WHERE site_id = 7) AS sessions,
                (SELECT sum(pageviews * sign) FROM sessions WHERE site_id = 7) AS pageviews,
                (SELECT sum(pageviews) FROM events_hourly WHERE site_id = 7) AS rolled`,
      )
    )[0]!;

  beforeAll(async () => {
    dir = await makeTempDir();
    store = await ChdbEventStore.open({ path: dir.path, database: 'insert_dedup' });
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await dir?.remove();
  });

  it('skips the same token, stores another token and an untokened insert again', async () => {
    const insert = (dedupToken?: string) =>
      Promise.all([
        store.insertEncoded(EVENTS_TABLE, {
          ...encodeRows(rows.events as unknown as Record<string, unknown>[]),
          ...(dedupToken ? { dedupToken: `${dedupToken}:events` } : {}),
        }),
        store.insertEncoded(SESSIONS_TABLE, {
          ...encodeRows(rows.sessions as unknown as Record<string, unknown>[]),
          ...(dedupToken ? { dedupToken: `${dedupToken}:sessions` } : {}),
        }),
      ]);
    await insert('batch-a');
    expect(await counts()).toEqual({ events: 3, sessions: 2, pageviews: 3, rolled: 3 });
    await insert('batch-a'); // the retry after a lost answer
    expect(await counts()).toEqual({ events: 3, sessions: 2, pageviews: 3, rolled: 3 });
    await insert('batch-b');
    expect(await counts()).toEqual({ events: 6, sessions: 4, pageviews: 6, rolled: 6 });
    await insert();
    expect(await counts()).toEqual({ events: 9, sessions: 6, pageviews: 9, rolled: 9 });
    // an unnamed insert of the same rows again (rows deleted and rewritten: a restarted import) is stored
    await insert();
    expect(await counts()).toEqual({ events: 12, sessions: 8, pageviews: 12, rolled: 12 });
  });
});
