import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { seedVisits } from '@sightline/events-schema/testing';
import { makeTempDir } from '@sightline/testkit';
import { countWindowEvents, eventPages } from './event-pages.js';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ingest/clickhouse');

// The export's keyset pages on the real engine: every row of the window once, in the
// sort key's order, whatever the page size — ties on the whole key included.
describe('export pages on chDB', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const window = { siteId: 1, startMs: Date.parse('2026-06-01T00:00:00Z'), endMs: Date.parse('2026-06-03T00:00:00Z') };

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'export_pages_test' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(
      events,
      [
        // visitor 1: three Signup events in the same millisecond (equal on the whole sort key), a pageview before
        {
          visitor: 1,
          events: [
            { at: '2026-06-01 10:00:00' },
            { at: '2026-06-01 10:01:00.500', name: 'Signup' },
            { at: '2026-06-01 10:01:00.500', name: 'Signup' },
            { at: '2026-06-01 10:01:00.500', name: 'Signup' },
            { at: '2026-06-01 10:02:00', path: '/b' },
          ],
        },
        // visitor 2 (above 2^53): the next day; visitor 3: before the window; site 2: never exported
        { visitor: '18446744073709551557', events: [{ at: '2026-06-02 23:59:59.999' }, { at: '2026-06-02 08:00:00', name: 'Signup' }] },
        { visitor: 3, events: [{ at: '2026-05-31 23:59:59.999' }] },
        { visitor: 4, site: 2, events: [{ at: '2026-06-01 12:00:00' }] },
      ],
      { siteId: 1 },
    );
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  const keyOf = (r: { day: string; name: string; visitor_key: string; ms: number }) =>
    `${r.day} ${r.name} ${r.visitor_key} ${new Date(Number(r.ms)).toISOString()}`;
  // by hand, in (day, name, visitor, time) order
  const expected = [
    '2026-06-01 Signup 1 2026-06-01T10:01:00.500Z',
    '2026-06-01 Signup 1 2026-06-01T10:01:00.500Z',
    '2026-06-01 Signup 1 2026-06-01T10:01:00.500Z',
    '2026-06-01 pageview 1 2026-06-01T10:00:00.000Z',
    '2026-06-01 pageview 1 2026-06-01T10:02:00.000Z',
    '2026-06-02 Signup 18446744073709551557 2026-06-02T08:00:00.000Z',
    '2026-06-02 pageview 18446744073709551557 2026-06-02T23:59:59.999Z',
  ];

  it.each([1, 2, 3, 4, 7, 100])('pages of %i rows give every row once, in order', async (pageRows) => {
    const pages: string[][] = [];
    for await (const page of eventPages(events, window, pageRows)) pages.push(page.map(keyOf));
    expect(pages.flat()).toEqual(expected);
    // a page holds ties whole: it may exceed the size only by rows equal to its last one
    for (const page of pages) expect(new Set(page.slice(pageRows - 1)).size).toBeLessThanOrEqual(1);
    expect(await countWindowEvents(events, window)).toBe(7);
  });

  it('an empty window gives no page', async () => {
    const pages = [];
    for await (const page of eventPages(events, { ...window, startMs: Date.parse('2020-01-01T00:00:00Z'), endMs: Date.parse('2020-01-02T00:00:00Z') }))
      pages.push(page);
    expect(pages).toEqual([]);
  });
});
