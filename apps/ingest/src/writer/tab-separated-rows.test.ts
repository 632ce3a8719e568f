import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { emptySessionAttributes, EVENT_ROW_TSV_COLUMNS, SESSION_ROW_TSV_COLUMNS } from '@sightline/events-schema';
import { uniqueName } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR } from '../migrations-dir.js';
import { applyEvent, type LiveSession } from '../sessions/sessionizer.js';
import type { SessionEvent } from '../sessions/session-event.js';
import { BatchWriter, type BatchPart } from './batch-writer.js';
import type { RowFormat } from './tab-separated-rows.js';

// Values TabSeparated must escape (tab, line feed, carriage return, backslash; quotes
// inside arrays), and some it must leave alone (commas, brackets, '\N', UTF-8).
const AWKWARD = ['tab\there', 'line\nfeed', 'carriage\rreturn', 'back\\slash', "it's", '"double", commas', "['not', 'an array']", '\\N', 'ünïcödé ✓ 😀', ''];

/** One visitor's events through the sessionizer, as the pipeline hands them to the writer. */
function visitParts(): BatchPart[] {
  const attributes = {
    ...emptySessionAttributes(),
    referrer: `https://ref.example/?q=${AWKWARD.join('|')}`,
    source: 'ref.example',
    channel: 'Referral',
    utm_campaign: 'spring\tsale\\2026',
    utm_term: "o'brien",
    country: 'DE',
    region: 'DE-BE',
    city: 4_294_967_295,
    browser: 'Firefox',
    browser_version: '120.0',
    device: 'Desktop',
    screen: 'Laptop',
  };
  const base = Date.UTC(2026, 2, 29, 0, 59, 59, 999);
  const events: Omit<SessionEvent, 'attributes'>[] = [
    {
      site_id: 7,
      at: base,
      name: 'pageview',
      visitor_id: '18446744073709551615',
      marker: '',
      hostname: 'example.com',
      pathname: '/a\tb\\c',
      prop_keys: [],
      prop_values: [],
      engagement_ms: 0,
      scroll_depth: 255,
      status_code: 0,
      import_id: 0,
    },
    {
      site_id: 7,
      at: base + 1,
      name: 'signup',
      visitor_id: '18446744073709551615',
      marker: '',
      hostname: 'example.com',
      pathname: AWKWARD.join('/'),
      prop_keys: AWKWARD.map((_, i) => `k${i},'`),
      prop_values: AWKWARD,
      engagement_ms: 0,
      scroll_depth: 255,
      status_code: 0,
      import_id: 0,
    },
    {
      site_id: 7,
      at: base + 60_000,
      name: 'engagement',
      visitor_id: '18446744073709551615',
      marker: '',
      hostname: 'example.com',
      pathname: '/',
      prop_keys: [],
      prop_values: [],
      engagement_ms: 4_294_967_295,
      scroll_depth: 100,
      status_code: 404,
      import_id: 0,
    },
    {
      site_id: 7,
      at: base + 120_000,
      name: 'pageview',
      visitor_id: '18446744073709551615',
      marker: '',
      hostname: 'näive.example',
      pathname: '/line\nfeed',
      prop_keys: ['empty'],
      prop_values: [''],
      engagement_ms: 0,
      scroll_depth: 0,
      status_code: 200,
      import_id: 0,
    },
  ];
  let live: LiveSession | undefined;
  return events.map((event) => {
    const step = applyEvent(live, { ...event, attributes });
    live = step.session;
    return { events: step.eventRow ? [step.eventRow] : [], sessions: step.sessionVersions, drops: [] };
  });
}

describe('events and sessions rows as TabSeparated', () => {
  let root: string;
  const stores = new Map<RowFormat, ChdbEventStore>();

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'sightline-tsv-rows-'));
    for (const format of ['json', 'tsv'] as const) {
      const store = await ChdbEventStore.open({ path: path.join(root, 'events'), database: uniqueName(`rows_${format}`) });
      await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
      stores.set(format, store);
    }
  });
  afterAll(async () => {
    for (const store of stores.values()) await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const EVENTS = 'SELECT *, toString(visitor_id) AS visitor, toString(session_id) AS session FROM events ORDER BY timestamp';
  // every version written, cancelled pairs included, in a stable order
  const SESSIONS = 'SELECT *, toString(visitor_id) AS visitor, toString(session_id) AS session FROM sessions ORDER BY version, sign';

  it('cover every column of the events and sessions tables', async () => {
    const store = stores.get('tsv')!;
    const columns = async (table: string) =>
      (
        await store.query<{ name: string }>('SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} ORDER BY name', {
          t: table,
        })
      ).map((c) => c.name);
    expect([...EVENT_ROW_TSV_COLUMNS].sort()).toEqual(await columns('events'));
    expect([...SESSION_ROW_TSV_COLUMNS].sort()).toEqual(await columns('sessions'));
  });

  it('store exactly what the JSON rows store, awkward text, UInt64 and UInt32 extremes and arrays included', async () => {
    for (const [format, store] of stores) {
      // one part per batch: every version reaches the table, none cancelled in the writer
      const writer = new BatchWriter(store, { maxRows: 1, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 10, rowFormat: format });
      for (const part of visitParts()) await writer.add(part);
      await writer.close();
    }
    const json = stores.get('json')!;
    const tsv = stores.get('tsv')!;
    const events = await tsv.query<Record<string, unknown>>(EVENTS);
    expect(events).toEqual(await json.query(EVENTS));
    expect(await tsv.query(SESSIONS)).toEqual(await json.query(SESSIONS));

    // and what was meant, by hand
    expect(events.map((e) => e.name)).toEqual(['pageview', 'signup', 'engagement', 'pageview']);
    expect(events[0]).toMatchObject({
      visitor: '18446744073709551615',
      pathname: '/a\tb\\c',
      timestamp: '2026-03-29 00:59:59.999',
      city: 4_294_967_295,
      utm_campaign: 'spring\tsale\\2026',
      utm_term: "o'brien",
    });
    expect(events[0]!.referrer).toBe(`https://ref.example/?q=${AWKWARD.join('|')}`);
    expect(events[1]).toMatchObject({
      pathname: AWKWARD.join('/'),
      prop_keys: AWKWARD.map((_, i) => `k${i},'`),
      prop_values: AWKWARD,
      timestamp: '2026-03-29 01:00:00.000',
    });
    expect(events[2]).toMatchObject({ engagement_ms: 4_294_967_295, scroll_depth: 100, status_code: 404 });
    expect(events[3]).toMatchObject({ hostname: 'näive.example', pathname: '/line\nfeed', prop_keys: ['empty'], prop_values: [''], scroll_depth: 0 });
    const sessions = await tsv.query<{
      sign: number;
      version: number;
      exit_page: string;
      exit_hostname: string;
      pageviews: number;
      events: number;
      engagement_ms: number;
      is_bounce: number;
      duration: number;
    }>('SELECT sign, version, exit_page, exit_hostname, pageviews, events, engagement_ms, is_bounce, duration FROM sessions ORDER BY version, sign');
    // 4 events: version 1 (+1), then for each next event the old version −1 and the new +1
    expect(sessions.map((s) => [s.version, s.sign])).toEqual([
      [1, -1],
      [1, 1],
      [2, -1],
      [2, 1],
      [3, -1],
      [3, 1],
      [4, 1],
    ]);
    expect(sessions.at(-1)).toEqual({
      sign: 1,
      version: 4,
      exit_page: '/line\nfeed',
      exit_hostname: 'näive.example',
      pageviews: 2,
      events: 3,
      engagement_ms: 4_294_967_295,
      is_bounce: 0,
      duration: 120,
    });
  });
});
