import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, type UntypedSubjects } from '@sightline/bus';
import { ChdbEventStore, runEventMigrations, type EncodedRows, type EventStore } from '@sightline/event-store';
import { emptySessionAttributes } from '@sightline/events-schema';
import { uniqueName } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR } from '../migrations-dir.js';
import { applyEvent } from '../sessions/sessionizer.js';
import { BatchWriter } from './batch-writer.js';

/**
 * The real store, every insert going through `around` with its table and row count:
 * the writer sends events and sessions rows encoded (insertEncoded), the rest as rows.
 */
function aroundInserts(store: EventStore, around: (table: string, rows: number, insert: () => Promise<void>) => Promise<void>): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'insert') return (table: string, rows: readonly Record<string, unknown>[]) => around(table, rows.length, () => target.insert(table, rows));
      if (prop === 'insertEncoded') return (table: string, rows: EncodedRows) => around(table, rows.rows, () => target.insertEncoded(table, rows));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The real store, with inserts into chosen tables failing while `down` says so (an outage, not a fake store). */
function withOutage(store: EventStore, down: (table: string) => boolean): EventStore {
  return aroundInserts(store, async (table, _rows, insert) => {
    if (down(table)) throw new Error(`events store unreachable (${table})`);
    await insert();
  });
}

function part(at: number) {
  const step = applyEvent(undefined, {
    site_id: 5,
    at,
    name: 'pageview',
    visitor_id: String(at),
    marker: '',
    hostname: 'example.com',
    pathname: '/',
    prop_keys: [],
    prop_values: [],
    engagement_ms: 0,
    scroll_depth: 255,
    status_code: 0,
    import_id: 0,
    attributes: { ...emptySessionAttributes(), channel: 'Direct', device: 'Desktop' },
  });
  return { events: [step.eventRow!], sessions: step.sessionVersions, drops: [] };
}

describe('BatchWriter on chDB', () => {
  let root: string;
  let store: EventStore;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'sightline-writer-'));
    store = await ChdbEventStore.open({ path: path.join(root, 'events'), database: uniqueName('writer') });
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
  });
  afterAll(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const count = async (table: string) => Number((await store.query<{ n: number }>(`SELECT count() AS n FROM ${table}`))[0]?.n);

  it('flushes at maxRows without waiting for the timer', async () => {
    await store.command('TRUNCATE TABLE events');
    const writer = new BatchWriter(store, { maxRows: 4, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 10 });
    // each part = 1 event + 1 session row: two parts reach 4 rows
    await Promise.all([writer.add(part(1_000)), writer.add(part(2_000))]);
    expect(await count('events')).toBe(2);
    await writer.close();
  });

  it('minRows: a batch goes at minRows while the first stage is free, grows while it is busy and goes when it frees, and goes at maxRows even while it is busy', async () => {
    await store.command('TRUNCATE TABLE events');
    const eventsInserts: number[] = [];
    const releases: (() => void)[] = [];
    let holding = true;
    // the real store, each events insert held while `holding` until the test lets it go
    const held = aroundInserts(store, async (table, rows, insert) => {
      if (table === 'events') {
        eventsInserts.push(rows);
        if (holding) await new Promise<void>((release) => releases.push(release));
      }
      await insert();
    });
    const settle = () => new Promise((r) => setTimeout(r, 50));
    // each part = 1 event + 1 session row
    const writer = new BatchWriter(held, { maxRows: 6, minRows: 2, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 10 });
    const first = writer.add(part(1_000));
    await settle();
    // one part is minRows and the stage was free: written at once, not after the timer
    expect(eventsInserts).toEqual([1]);
    // while it is held, two parts wait: 4 rows, over minRows, but the stage is busy
    const waiting = [writer.add(part(2_000)), writer.add(part(3_000))];
    await settle();
    expect(eventsInserts).toEqual([1]);
    holding = false;
    releases.shift()!();
    await Promise.all([first, ...waiting]);
    // they went as one batch once the first left the stage
    expect(eventsInserts).toEqual([1, 2]);

    holding = true;
    const busy = writer.add(part(4_000));
    await settle();
    // with the stage busy, three parts reach maxRows and go; the fourth starts a batch of its own
    const more = [5_000, 6_000, 7_000, 8_000].map((at) => writer.add(part(at)));
    await settle();
    holding = false;
    releases.shift()!();
    await Promise.all([busy, ...more]);
    expect(eventsInserts).toEqual([1, 2, 1, 3, 1]);
    expect(await count('events')).toBe(8);
    await writer.close();
  });

  it("minRows: a batch of messages that waited in the stream longer than backlogAfterMs (default maxDelayMs) is a backlog's, and grows to maxRows", async () => {
    await store.command('TRUNCATE TABLE events');
    const eventsInserts: number[] = [];
    const counted = aroundInserts(store, async (table, rows, insert) => {
      if (table === 'events') eventsInserts.push(rows);
      await insert();
    });
    const settle = () => new Promise((r) => setTimeout(r, 50));
    const now = 1_000_000;
    // each part = 1 event + 1 session row; the timer (maxDelayMs) is far longer than the test
    const writer = new BatchWriter(counted, { maxRows: 6, minRows: 2, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 10, now: () => now });
    let at = 0;
    // a distinct event each (identical inserts could be deduplicated)
    const stored = (waitedMs: number) => ({ ...part((at += 1_000)), storedAt: now - waitedMs });
    // stored 60,001 ms before now: minRows is reached with the stage free, yet nothing goes
    const backlog = [writer.add(stored(60_001))];
    await settle();
    expect(eventsInserts).toEqual([]);
    backlog.push(writer.add(stored(60_001)));
    await settle();
    expect(eventsInserts).toEqual([]);
    // the third part reaches maxRows
    backlog.push(writer.add(stored(60_001)));
    await Promise.all(backlog);
    expect(eventsInserts).toEqual([3]);
    // the backlog worked off: a message that waited exactly maxDelayMs is live, and goes at minRows
    await writer.add(stored(60_000));
    expect(eventsInserts).toEqual([3, 1]);
    // a live message joining a backlog's batch lets it go: the newest decides
    const late = writer.add(stored(70_000));
    await settle();
    expect(eventsInserts).toEqual([3, 1]);
    await Promise.all([late, writer.add(stored(10))]);
    expect(eventsInserts).toEqual([3, 1, 2]);
    // a part without storedAt (an import's, a test's) is live
    await writer.add(part(500));
    expect(eventsInserts).toEqual([3, 1, 2, 1]);
    // backlogAfterMs set: what waited 10 ms is a backlog's (goes at maxRows, or at close)
    const strict = new BatchWriter(counted, { maxRows: 6, minRows: 2, maxDelayMs: 60_000, backlogAfterMs: 5, retryBaseMs: 10, retryMaxMs: 10, now: () => now });
    const strictPart = strict.add(stored(10));
    await settle();
    expect(eventsInserts).toEqual([3, 1, 2, 1]);
    await strict.close();
    await strictPart;
    expect(eventsInserts).toEqual([3, 1, 2, 1, 1]);
    expect(await count('events')).toBe(8);
    await writer.close();
  });

  it("inserts the next batch's events while this batch's sessions are in flight, never a batch's sessions before its events or before the previous batch's sessions", async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    const log: string[] = [];
    const held = new Map<string, () => void>();
    // the real store, with the first insert of each table held until the test lets it go
    const holding = aroundInserts(store, async (table, _rows, insert) => {
      const call = `${table}#${log.filter((line) => line.startsWith(`start ${table}#`)).length + 1}`;
      log.push(`start ${call}`);
      if (call.endsWith('#1')) await new Promise<void>((release) => held.set(call, release));
      await insert();
      log.push(`end ${call}`);
    });
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 200 && !what(); i += 1) await new Promise((r) => setTimeout(r, 5));
      expect(what()).toBe(true);
    };
    // 1 event + 1 session row per part: each batch is one part
    const writer = new BatchWriter(holding, { maxRows: 2, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 10 });
    const acked: string[] = [];
    const first = writer.add(part(10_000)).then(() => acked.push('first'));
    const second = writer.add(part(20_000)).then(() => acked.push('second'));

    await until(() => held.has('events#1'));
    await new Promise((r) => setTimeout(r, 50));
    expect(log).toEqual(['start events#1']); // batch 1's sessions wait for its events; batch 2 waits its turn
    held.get('events#1')!();
    await until(() => held.has('sessions#1') && log.includes('end events#2'));
    await new Promise((r) => setTimeout(r, 50));
    // batch 2's events went in beside batch 1's sessions; batch 2's sessions wait for batch 1's
    expect(log).toEqual(['start events#1', 'end events#1', 'start sessions#1', 'start events#2', 'end events#2']);
    expect(acked).toEqual([]);
    held.get('sessions#1')!();
    await Promise.all([first, second]);
    expect(log.slice(5)).toEqual(['end sessions#1', 'start sessions#2', 'end sessions#2']);
    expect(acked).toEqual(['first', 'second']);
    expect(await count('events')).toBe(2);
    expect(await count('sessions')).toBe(2);
    await writer.close();
  });

  it('rejects every batch still waiting in either stage when it closes with the store down', async () => {
    const writer = new BatchWriter(
      withOutage(store, (t) => t === 'sessions'),
      { maxRows: 2, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 20 },
    );
    const outcomes = [writer.add(part(30_000)), writer.add(part(40_000))].map((p) =>
      p.then(
        () => 'stored',
        () => 'rejected',
      ),
    );
    await new Promise((r) => setTimeout(r, 100));
    await writer.close(50);
    expect(await Promise.all(outcomes)).toEqual(['rejected', 'rejected']);
  });

  it('keeps the batch through an outage (sessions insert failing after events succeeded), then writes each table exactly once', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    let sessionsDown = true;
    const errors: number[] = [];
    const writer = new BatchWriter(
      withOutage(store, (t) => t === 'sessions' && sessionsDown),
      {
        maxRows: 1000,
        maxDelayMs: 10,
        retryBaseMs: 20,
        retryMaxMs: 40,
        onInsertError: (_e, attempt) => errors.push(attempt),
      },
    );
    let stored = false;
    const added = writer.add(part(3_000)).then(() => (stored = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(stored).toBe(false); // the caller has not acked: its insert did not succeed
    expect(errors.length).toBeGreaterThanOrEqual(3);
    sessionsDown = false;
    await added;
    expect(await count('events')).toBe(1);
    expect(await count('sessions')).toBe(1);
    await writer.close();
  });

  it('acks a bus message only after its insert: an outage leaves it unacked and it is stored once the store is back', async () => {
    await store.command('TRUNCATE TABLE events');
    let down = true;
    const writer = new BatchWriter(
      withOutage(store, () => down),
      { maxRows: 1000, maxDelayMs: 10, retryBaseMs: 20, retryMaxMs: 40 },
    );
    const bus = new LocalBus<UntypedSubjects>();
    await bus.ensureStreams([{ name: 'WTEST', subjects: ['wtest.>'] }]);
    const acked: number[] = [];
    const sub = await bus.consume({
      stream: 'WTEST',
      durable: 'w',
      ackWaitMs: 10_000,
      handler: async (msg) => {
        await writer.add(part((msg.data as { at: number }).at));
        await msg.ack();
        acked.push((msg.data as { at: number }).at);
      },
    });
    await bus.publish('wtest.one', { at: 4_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(acked).toEqual([]);
    expect(await count('events')).toBe(0);
    down = false;
    for (let i = 0; i < 100 && acked.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(acked).toEqual([4_000]);
    expect(await count('events')).toBe(1);
    await sub.stop();
    await bus.close();
    await writer.close();
  });
});
