import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { seedVisits } from '@sightline/events-schema/testing';
import { expectApiError, makeTempDir } from '@sightline/testkit';
import { listProps } from './props.js';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ingest/clickhouse');

describe('GET /props on chDB', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const site = { siteId: 1, timezone: 'UTC', nowMs: Date.parse('2026-06-10T12:00:00Z') };

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'props_test' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(
      events,
      [
        {
          visitor: 1,
          events: [
            { at: '2026-06-09 10:00:00' },
            { at: '2026-06-09 10:01:00', name: 'Signup', props: { plan: 'pro', 'a,b': 'x' } },
            { at: '2026-06-09 10:02:00', name: 'Signup', props: { plan: 'free' } },
          ],
        },
        {
          visitor: 2,
          events: [
            { at: '2026-06-10 09:00:00', name: 'Download', props: { file: 'a.pdf', 'a,b': 'y' } },
            { at: '2026-06-10 09:05:00', name: 'Download', props: { plan: 'x' } },
          ],
        },
        { visitor: 3, events: [{ at: '2026-05-01 09:00:00', name: 'Old', props: { legacy: '1' } }] },
        { visitor: 4, site: 2, events: [{ at: '2026-06-10 09:00:00', name: 'Other', props: { secret: '1' } }] },
      ],
      { siteId: 1 },
    );
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  it('lists the keys of the window, most used first, then by key', async () => {
    // plan: 3 events, "a,b": 2, file: 1; legacy is outside the window; site 2's key is not shown
    expect(await listProps(events, '7d', site)).toEqual({
      props: [
        { key: 'plan', events: 3 },
        { key: 'a,b', events: 2 },
        { key: 'file', events: 1 },
      ],
      date_range: ['2026-06-04', '2026-06-10'],
    });
    expect((await listProps(events, ['2026-05-01', '2026-05-01'], site)).props).toEqual([{ key: 'legacy', events: 1 }]);
    expect((await listProps(events, ['2025-05-01', '2025-05-01'], site)).props).toEqual([]);
  });

  it('uses the date-range rules of POST /query', async () => {
    await expectApiError(listProps(events, '91d', site), 'invalid_date_range');
  });
});
