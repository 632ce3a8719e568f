import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { seedVisits } from '@sightline/events-schema/testing';
import { makeTempDir } from '@sightline/testkit';
import { ImportStore } from './imports/import-store.js';
import { deleteSiteData } from './site-deleted.js';
import { INGEST_EVENT_MIGRATIONS_DIR } from './migrations-dir.js';

/**
 * The hourly roll-ups (0009) follow every delete of raw rows: an import's, a site's
 * imports, a whole site. Checked against the same aggregates recomputed from the raw
 * rows left, per (site, hour, import).
 */
const FROM_ROLLUPS = `
  SELECT site_id, hour, import_id, v, p, visits, pv, dur FROM (
    SELECT site_id, hour, import_id, uniqExactMerge(visitors) AS v, sum(pageviews) AS p FROM events_hourly GROUP BY site_id, hour, import_id
  ) AS e FULL OUTER JOIN (
    SELECT site_id, hour, import_id, sum(visits) AS visits, sum(pageviews) AS pv, sum(duration) AS dur FROM sessions_hourly WHERE carry = 0 GROUP BY site_id, hour, import_id HAVING visits != 0
  ) AS s USING (site_id, hour, import_id) ORDER BY site_id, hour, import_id`;
const FROM_RAW = `
  SELECT site_id, hour, import_id, v, p, visits, pv, dur FROM (
    SELECT site_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS hour, import_id, uniqExact(visitor_id) AS v, countIf(name = 'pageview') AS p FROM events WHERE name != 'engagement' GROUP BY site_id, hour, import_id
  ) AS e FULL OUTER JOIN (
    SELECT site_id, toStartOfHour(toDateTime(start, 'UTC')) AS hour, import_id, sum(toInt64(sign)) AS visits, sum(pageviews * sign) AS pv, sum(duration * sign) AS dur FROM sessions GROUP BY site_id, hour, import_id HAVING visits != 0
  ) AS s USING (site_id, hour, import_id) ORDER BY site_id, hour, import_id`;

describe('roll-ups follow deletes of raw rows', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let store: ChdbEventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    store = await ChdbEventStore.open({ path: dir.path, database: 'rollup_deletes' });
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await dir?.remove();
  });

  const rows = (sql: string) => store.query<Record<string, unknown>>(sql).then((r) => r.map((row) => JSON.stringify(row)));
  const count = async (sql: string) => Number((await store.query<{ n: number }>(sql))[0]!.n);

  it("an import, then the site's imports, then the site: the roll-ups equal the raw rows left", async () => {
    await seedVisits(
      store,
      [
        { visitor: 1, events: [{ at: '2026-06-01 10:00:00' }, { at: '2026-06-01 10:20:00', path: '/a' }] },
        { visitor: 2, importId: 3, events: [{ at: '2026-06-01 10:30:00' }, { at: '2026-06-01 10:40:00' }] },
        { visitor: 1, importId: 3, events: [{ at: '2026-06-01 11:30:00' }] },
        { visitor: 3, importId: 4, events: [{ at: '2026-06-01 10:05:00' }] },
        { visitor: 1, site: 2, events: [{ at: '2026-06-01 10:00:00' }] },
        { visitor: 5, site: 2, importId: 9, events: [{ at: '2026-06-01 10:00:00' }] },
      ],
      { siteId: 1 },
    );
    const before = await rows(FROM_ROLLUPS);
    expect(before).toEqual(await rows(FROM_RAW));
    expect(before.length).toBe(6); // site 1: 10:00 × imports 0, 3, 4; 11:00 × import 3; site 2: 10:00 × imports 0, 9

    const imports = new ImportStore(store);
    await imports.deleteImportRows(1, 3);
    expect(await rows(FROM_ROLLUPS)).toEqual(await rows(FROM_RAW));
    expect(await count('SELECT count() AS n FROM events_hourly WHERE import_id = 3')).toBe(0);

    await imports.deleteSiteImports(1);
    expect(await rows(FROM_ROLLUPS)).toEqual(await rows(FROM_RAW));
    expect(await count('SELECT count() AS n FROM sessions_hourly WHERE site_id = 1 AND import_id > 0')).toBe(0);
    expect(await count('SELECT count() AS n FROM events_hourly WHERE site_id = 2 AND import_id = 9')).toBe(1);

    await deleteSiteData(store, 1);
    expect(await rows(FROM_ROLLUPS)).toEqual(await rows(FROM_RAW));
    expect(await count('SELECT count() AS n FROM events_hourly WHERE site_id = 1')).toBe(0);
    expect(await count('SELECT count() AS n FROM sessions_hourly WHERE site_id = 1')).toBe(0);
    expect(await count('SELECT count() AS n FROM events_hourly WHERE site_id = 2')).toBe(2);
  });
});
