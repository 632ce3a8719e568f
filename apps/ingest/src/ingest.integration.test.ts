import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS, SUBJECTS, type Bus, type UntypedSubjects, collectedSubject } from '@sightline/bus';

/** Publishes a collected message as the gateway would (shard 0), malformed ones included: ingest must survive them. */
const publishCollected = (bus: Bus, message: Record<string, unknown>) => (bus as unknown as Bus<UntypedSubjects>).publish(collectedSubject(0), message);
import { loadConfig } from '@sightline/config';
import type { PgDb } from '@sightline/db';
import type { EncodedRows, EventStore } from '@sightline/event-store';
import type { ServiceInstance } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { backendGate, captureLog, movableClock } from '@sightline/testkit';
import { DailySalts } from './identity/daily-salts.js';
import { IngestPipeline } from './pipeline/ingest-pipeline.js';
import { rebuildSessions } from './sessions/rebuild-sessions.js';
import { consumeSiteDeleted } from './site-deleted.js';
import { SessionCache } from './sessions/session-cache.js';
import { startIngest } from './start-ingest.js';
import { fixturePorts, site } from './test-support/fixture-ports.js';
import { openIngestTestStores, type IngestTestStores } from './test-support/ingest-stores.js';
import { BatchWriter } from './writer/batch-writer.js';

const gate = await backendGate('postgres');
const NOW = '2025-03-10T12:00:00.000Z';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

const SITES = {
  livekey0001: site({
    site_id: 11,
    hostnames: { allowed: ['example.com', '*.example.com'], blocked: ['staging.example.com'] },
    blocked_ips: ['10.9.0.0/16'],
    countries: { allowed: [], blocked: ['RU'] },
  }),
  inactive0001: site({ site_id: 12, tracking_active: false }),
  onlyde000001: site({ site_id: 13, countries: { allowed: ['DE'], blocked: [] } }),
};
const GEO = {
  '203.0.113.5': { country: 'DE', region: 'DE-BE', city: 2950159 },
  '203.0.113.6': { country: 'FR', region: 'FR-IDF', city: 2988507 },
  '198.51.100.9': { country: 'RU', region: '', city: 0 },
};

function collected(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { k: 'livekey0001', n: 'pageview', u: 'https://example.com/', d: 'example.com', ts: NOW, ip: '203.0.113.5', ua: FIREFOX, ...overrides };
}

const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();

async function waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!gate.available)('ingest on chDB, PostgreSQL and the bus', () => {
  let stores: IngestTestStores;
  let db: PgDb;
  let store: EventStore;
  const clock = movableClock(NOW);
  const log = createLogger({ level: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent' });
  const config = loadConfig({ INGEST_BATCH_ROWS: '50', INGEST_BATCH_MAX_DELAY_MS: '30', EVENT_SHARDS: '1' });

  beforeAll(async () => {
    stores = await openIngestTestStores(gate.url, 'ingest');
    ({ db, store } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  /** workers: INGEST_WORKERS (the pipeline on worker threads, with the same fixture sites and geo) */
  async function start(bus: Bus, workers = 0): Promise<ServiceInstance> {
    return startIngest(
      { config: { ...config, INGEST_WORKERS: workers }, log, clock: clock.clock, db, events: store, bus },
      { ports: fixturePorts(SITES, GEO, clock.clock), workerGeo: { kind: 'table', table: GEO } },
    );
  }

  const count = async (sql: string, params = {}) => Number((await store.query<{ n: number }>(sql, params))[0]?.n ?? 0);
  const stored = () => count('SELECT count() AS n FROM events');
  const droppedTotal = () => count('SELECT sum(count) AS n FROM dropped_events');

  it.each([
    { workers: 0, on: 'on the main thread' },
    { workers: 1, on: 'on a pipeline worker thread' },
  ])('drops each refused event under its reason and stores the rest ($on)', async ({ workers }) => {
    for (const table of ['events', 'sessions', 'dropped_events']) await store.command(`TRUNCATE TABLE ${table}`);
    const bus = new LocalBus();
    const ingest = await start(bus, workers);
    const messages = [
      collected({ u: 'https://example.com/a' }), // stored
      collected({ u: 'https://blog.example.com/b', ts: at(1) }), // stored (wildcard allowed host)
      collected({ ua: GOOGLEBOT }), // bot
      collected({ r: 'https://007agent-i.fr/x' }), // referrer_spam (on Matomo's list)
      collected({ k: 'unknownkey01' }), // unknown_site
      collected({ k: 'inactive0001' }), // tracking_inactive
      collected({ u: 'https://other.org/' }), // hostname_not_allowed
      collected({ u: 'https://staging.example.com/' }), // hostname_blocked (blocked wins over *.example.com)
      collected({ ip: '10.9.200.1' }), // ip_blocked (CIDR)
      collected({ ip: '::ffff:10.9.0.7' }), // ip_blocked (IPv4-mapped)
      collected({ ip: '198.51.100.9' }), // country_blocked
      collected({ k: 'onlyde000001', ip: '203.0.113.6' }), // country_not_allowed
      collected({ n: 'engagement', e: 1000, ip: '203.0.113.99' }), // engagement_without_session
      collected({ ts: '2025-03-08T12:00:00.000Z' }), // stale: the 8th's salt is gone on the 10th
      collected({ u: 'ftp://example.com/a' }), // invalid_url: only http: and https: pages count
      collected({ u: 'chrome-extension://abcdefghijklmnop/popup.html' }), // invalid_url
      collected({ u: 'ws://example.com/socket' }), // invalid_url
      collected({ u: 'file:///home/me/index.html' }), // invalid_url (no host)
      { k: 'livekey0001', n: 'pageview' }, // invalid
    ];
    for (const m of messages) await publishCollected(bus, m);
    await waitFor(
      async () => (await stored()) + (await droppedTotal()),
      (n) => n >= messages.length,
    );
    await ingest.stop();
    await bus.close();

    expect(await stored()).toBe(2);
    const rows = await store.query<{ site_id: number; reason: string; crawler_category: string; n: number }>(
      'SELECT site_id, reason, crawler_category, sum(count) AS n FROM dropped_events GROUP BY site_id, reason, crawler_category ORDER BY reason',
    );
    expect(rows).toEqual(
      [
        { site_id: 11, reason: 'bot', crawler_category: 'search', n: 1 },
        { site_id: 13, reason: 'country_not_allowed', crawler_category: '', n: 1 },
        { site_id: 11, reason: 'country_blocked', crawler_category: '', n: 1 },
        { site_id: 11, reason: 'engagement_without_session', crawler_category: '', n: 1 },
        { site_id: 11, reason: 'hostname_blocked', crawler_category: '', n: 1 },
        { site_id: 11, reason: 'hostname_not_allowed', crawler_category: '', n: 1 },
        { site_id: 0, reason: 'invalid', crawler_category: '', n: 1 },
        { site_id: 11, reason: 'invalid_url', crawler_category: '', n: 4 },
        { site_id: 11, reason: 'ip_blocked', crawler_category: '', n: 2 },
        { site_id: 11, reason: 'referrer_spam', crawler_category: '', n: 1 },
        { site_id: 11, reason: 'stale', crawler_category: '', n: 1 },
        { site_id: 12, reason: 'tracking_inactive', crawler_category: '', n: 1 },
        { site_id: 0, reason: 'unknown_site', crawler_category: '', n: 1 },
      ].sort((a, b) => a.reason.localeCompare(b.reason)),
    );
    // Both stored pageviews are one visitor's one visit (same IP+UA, 1 minute apart).
    const visit = await store.query(
      'SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews, sum(duration * sign) AS duration FROM sessions WHERE site_id = 11',
    );
    expect(visit).toEqual([{ visits: 1, pageviews: 2, duration: 60 }]);
    // Nothing of the IP or the User-Agent is stored.
    const dump = JSON.stringify(await store.query('SELECT * FROM events')) + JSON.stringify(await store.query('SELECT * FROM sessions'));
    expect(dump).not.toContain('203.0.113.5');
    expect(dump).not.toContain('Gecko');
  });

  it('keeps a visit together when the IP changes mid-visit with the same tab marker, and rebuilds live visits after a restart', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    const bus = new LocalBus();
    let ingest = await start(bus);
    await publishCollected(bus, collected({ ts: at(10), s: 'tab-1', u: 'https://example.com/one' }));
    await waitFor(stored, (n) => n >= 1);
    // mobile network switch: new IP, same tab
    await publishCollected(bus, collected({ ts: at(12), s: 'tab-1', ip: '203.0.113.6', u: 'https://example.com/two' }));
    await waitFor(stored, (n) => n >= 2);
    await ingest.stop();

    // Restart: a fresh process knows no visit until it rebuilds them from the sessions table.
    clock.set(at(20));
    ingest = await start(bus);
    await publishCollected(bus, collected({ ts: at(20), u: 'https://example.com/three' }));
    await waitFor(stored, (n) => n >= 3);
    await ingest.stop();
    await bus.close();
    clock.set(NOW);

    const visits = await store.query('SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews, sum(is_bounce * sign) AS bounces FROM sessions');
    expect(visits).toEqual([{ visits: 1, pageviews: 3, bounces: 0 }]);
    const sessionsOfEvents = await count('SELECT uniqExact(session_id) AS n FROM events');
    expect(sessionsOfEvents).toBe(1);
    const [final] = await store.query<{ entry_page: string; exit_page: string; duration: number }>(
      'SELECT argMax(entry_page, version) AS entry_page, argMax(exit_page, version) AS exit_page, argMax(duration, version) AS duration FROM sessions',
    );
    expect(final).toEqual({ entry_page: '/one', exit_page: '/three', duration: 600 });
  });

  it('holds at most two batches of unacked events across all its shards while the store is slow, then stores every one', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    const shards = 8;
    const batchRows = 40;
    // the events insert waits until released: the batch in flight, the next one filling, the rest stays on the bus
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slowStore: EventStore = {
      kind: store.kind,
      database: store.database,
      query: (sql, params) => store.query(sql, params),
      command: (sql, params) => store.command(sql, params),
      insert: async (table, rows) => (table === 'events' && (await released), store.insert(table, rows)),
      insertEncoded: async (table, rows) => (table === 'events' && (await released), store.insertEncoded(table, rows)),
      ping: () => store.ping(),
      close: async () => {},
    };
    const ports = fixturePorts(SITES, GEO, clock.clock);
    let taken = 0;
    const resolve = ports.sites.resolve.bind(ports.sites);
    ports.sites.resolve = (key) => ((taken += 1), resolve(key));
    const bus = new LocalBus();
    const shardConfig = loadConfig({ INGEST_BATCH_ROWS: String(batchRows), INGEST_BATCH_MAX_DELAY_MS: '20', EVENT_SHARDS: String(shards) });
    const ingest = await startIngest({ config: shardConfig, log, clock: clock.clock, db, events: slowStore, bus }, { ports });
    const total = 400;
    for (let i = 0; i < total; i += 1) {
      await (bus as unknown as Bus<UntypedSubjects>).publish(
        collectedSubject(i % shards),
        collected({ ip: `203.0.113.${i % 200}`, ts: at(i / 100), u: `https://example.com/${i}` }),
      );
    }
    await waitFor(
      async () => taken,
      (n) => n >= 2 * batchRows,
    );
    await new Promise((r) => setTimeout(r, 300));
    // one consumer per shard, each allowed batchRows in flight, would have taken 8 × 40 = 320
    expect(taken).toBe(2 * batchRows);
    release();
    expect(await waitFor(stored, (n) => n === total)).toBe(total);
    await ingest.stop();
    await bus.close();
  });

  it('never counts a redelivered event twice: waiting in a batch, or already stored', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    const writer = new BatchWriter(store, { maxRows: 1000, maxDelayMs: 20, retryBaseMs: 10, retryMaxMs: 50 });
    const pipeline = new IngestPipeline({
      ports: fixturePorts(SITES, GEO, clock.clock),
      salts: new DailySalts(db, clock.clock),
      sessions: new SessionCache(),
      writer,
      store,
    });
    const first = collected({ ts: at(30), u: 'https://example.com/p' });
    const second = collected({ ts: at(31), u: 'https://example.com/q' });
    // redelivered while the first delivery still waits in the batch
    await Promise.all([pipeline.handle(first, false), pipeline.handle(first, true)]);
    // redelivered after it was stored (an ack that got lost)
    await pipeline.handle(first, true);
    await pipeline.handle(second, false);
    await pipeline.handle(second, true);
    // after a crash: a fresh process (empty cache) gets both again
    await writer.flush();
    const rebuilt = new SessionCache();
    clock.set(at(32));
    expect(await rebuildSessions(store, rebuilt, clock.now())).toEqual({ visits: 1, repaired: 0 });
    clock.set(NOW);
    const restarted = new IngestPipeline({
      ports: fixturePorts(SITES, GEO, clock.clock),
      salts: new DailySalts(db, clock.clock),
      sessions: rebuilt,
      writer,
      store,
    });
    await restarted.handle(first, true);
    await restarted.handle(second, true);
    await writer.close();

    expect(await stored()).toBe(2);
    expect(await store.query('SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews FROM sessions')).toEqual([{ visits: 1, pageviews: 2 }]);
  });

  it('repairs the visits a kill between the events and sessions inserts left short, while the visitor keeps browsing', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    const pipelineOn = (writer: BatchWriter, sessions: SessionCache) =>
      new IngestPipeline({ ports: fixturePorts(SITES, GEO, clock.clock), salts: new DailySalts(db, clock.clock), sessions, writer, store });
    const visitorA = (ts: string, u: string, extra: Record<string, unknown> = {}) => collected({ ts, u: `https://example.com${u}`, ...extra });
    const visitorB = (ts: string, u: string) => collected({ ts, u: `https://example.com${u}`, ip: '203.0.113.6' });

    // Before the crash: A's first two pageviews are stored whole.
    const cache = new SessionCache();
    const healthy = new BatchWriter(store, { maxRows: 1000, maxDelayMs: 20, retryBaseMs: 10, retryMaxMs: 50 });
    await pipelineOn(healthy, cache).handle(visitorA(at(40), '/a'), false);
    await pipelineOn(healthy, cache).handle(visitorA(at(41), '/b'), false);
    await healthy.close();

    // The next batches: their events inserts land, then the process dies before their sessions inserts.
    // One message per batch (maxRows 1): the writer inserts a batch's events while the previous
    // batch's sessions are in flight, so a kill can leave several batches' events without their visits.
    let eventInserts = 0;
    const diesBeforeSessions = {
      insert: (table: string, rows: Record<string, unknown>[]) => {
        if (table === 'sessions') return Promise.reject(new Error('killed'));
        if (table === 'events') eventInserts += 1;
        return store.insert(table, rows);
      },
      // events and sessions rows go encoded (TabSeparated)
      insertEncoded: (table: string, rows: EncodedRows) => {
        if (table === 'sessions') return Promise.reject(new Error('killed'));
        if (table === 'events') eventInserts += 1;
        return store.insertEncoded(table, rows);
      },
    } as unknown as EventStore;
    const dying = new BatchWriter(diesBeforeSessions, { maxRows: 1, maxDelayMs: 20, retryBaseMs: 10, retryMaxMs: 50 });
    const beforeKill = pipelineOn(dying, cache);
    const lost = [
      visitorA(at(42), '/c'),
      visitorA('2025-03-10T12:42:30.000Z', '/c', { n: 'engagement', e: 5000 }),
      visitorB(at(42), '/x'), // B's visit starts in the lost batch: no session row of it at all
    ];
    const unacked = lost.map((m) =>
      beforeKill.handle(m, false).then(
        () => 'acked',
        () => 'unacked',
      ),
    );
    await waitFor(stored, (n) => n >= 5);
    await dying.close(50);
    expect(eventInserts).toBe(3);
    expect(await Promise.all(unacked)).toEqual(['unacked', 'unacked', 'unacked']);
    expect(await store.query('SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews FROM sessions')).toEqual([{ visits: 1, pageviews: 2 }]);

    // Restart: the rebuild finds both visits short of their stored events.
    clock.set(at(43));
    const rebuilt = new SessionCache();
    expect(await rebuildSessions(store, rebuilt, clock.now())).toEqual({ visits: 2, repaired: 2 });
    const writer = new BatchWriter(store, { maxRows: 1000, maxDelayMs: 20, retryBaseMs: 10, retryMaxMs: 50 });
    const restarted = pipelineOn(writer, rebuilt);
    // Both visitors browse on before the lost messages come back…
    await restarted.handle(visitorA(at(44), '/d'), false);
    await restarted.handle(visitorB(at(44), '/y'), false);
    // …then the redeliveries: stored already, counted already.
    for (const message of lost) await restarted.handle(message, true);
    await writer.close();
    clock.set(NOW);

    expect(await stored()).toBe(7);
    const visits = await store.query(
      `SELECT argMax(entry_page, version) AS entry, argMax(exit_page, version) AS exit, argMax(country, version) AS country, sum(sign) AS live, sum(pageviews * sign) AS pageviews,
              sum(events * sign) AS events, sum(engagement_ms * sign) AS engagement_ms, sum(duration * sign) AS duration
       FROM sessions GROUP BY session_id ORDER BY entry`,
    );
    expect(visits).toEqual([
      { entry: '/a', exit: '/d', country: 'DE', live: 1, pageviews: 4, events: 4, engagement_ms: 5000, duration: 240 },
      { entry: '/x', exit: '/y', country: 'FR', live: 1, pageviews: 2, events: 2, engagement_ms: 0, duration: 120 },
    ]);
    // the events carry the same two visits
    expect(await count('SELECT uniqExact(session_id) AS n FROM events')).toBe(2);
  });

  it('shares one salt per day between replicas and deletes salts older than yesterday', async () => {
    const a = new DailySalts(db, clock.clock);
    const b = new DailySalts(db, clock.clock);
    const [sa, sb] = await Promise.all([a.forDay('2025-03-10'), b.forDay('2025-03-10')]);
    expect(sa?.length).toBe(32);
    expect(sa?.equals(sb!)).toBe(true);
    await a.forDay('2025-03-09');
    expect(await a.forDay('2025-03-08')).toBeNull();
    const later = movableClock('2025-03-12T00:00:01Z');
    await new DailySalts(db, later.clock).forDay('2025-03-12');
    const { rows } = await db.query<{ day: string }>("SELECT to_char(day, 'YYYY-MM-DD') AS day FROM ingest.daily_salts ORDER BY day");
    expect(rows.map((r) => r.day)).toEqual(['2025-03-12']);
  });

  it('records the day of an event older than its visit’s start, before the event; not for one merely out of order', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    await store.command('TRUNCATE TABLE late_event_days');
    const inserted: string[] = [];
    const recordingStore: EventStore = {
      kind: store.kind,
      database: store.database,
      query: (sql, params) => store.query(sql, params),
      command: (sql, params) => store.command(sql, params),
      insert: async (table, rows) => (inserted.push(table), store.insert(table, rows)),
      insertEncoded: async (table, rows) => (inserted.push(table), store.insertEncoded(table, rows)),
      ping: () => store.ping(),
      close: async () => {},
    };
    const writer = new BatchWriter(recordingStore, { maxRows: 1000, maxDelayMs: 200, retryBaseMs: 10, retryMaxMs: 50 });
    const pipeline = new IngestPipeline({
      ports: fixturePorts(SITES, GEO, clock.clock),
      salts: new DailySalts(db, clock.clock),
      sessions: new SessionCache(),
      writer,
      store,
    });
    // the visit starts at 12:30; a pageview of 12:20 reaches ingest after it (redelivered late, say)
    // and joins it; then an event inside the visit, after its start, arriving late too: one batch
    await Promise.all([
      pipeline.handle(collected({ ts: at(30), u: 'https://example.com/a' }), false),
      pipeline.handle(collected({ ts: at(40), u: 'https://example.com/c' }), false),
      pipeline.handle(collected({ ts: at(20), u: 'https://example.com/b' }), false),
      pipeline.handle(collected({ ts: at(35), u: 'https://example.com/d' }), false),
    ]);
    expect(inserted).toEqual(['late_event_days', 'events', 'sessions']);
    expect(await store.query('SELECT site_id, toString(day) AS day FROM late_event_days')).toEqual([{ site_id: 11, day: '2025-03-10' }]);
    // one visit: the late event did not move its start
    expect(await store.query('SELECT sum(sign) AS visits, toString(min(start)) AS start FROM sessions WHERE sign > 0')).toEqual([
      { visits: 1, start: '2025-03-10 12:30:00.000' },
    ]);
    // another visitor, events out of order but none older than the visit's start: no day written
    inserted.length = 0;
    await Promise.all([
      pipeline.handle(collected({ ts: at(50), ip: '203.0.113.6', u: 'https://example.com/e' }), false),
      pipeline.handle(collected({ ts: at(60), ip: '203.0.113.6', u: 'https://example.com/f' }), false),
      pipeline.handle(collected({ ts: at(55), ip: '203.0.113.6', u: 'https://example.com/g' }), false),
    ]);
    expect(inserted).toEqual(['events', 'sessions']);
    await writer.close();
  });

  it('writes none of a deleted site’s rows after the deletion, even of an event prepared before it', async () => {
    await store.command('TRUNCATE TABLE events');
    await store.command('TRUNCATE TABLE sessions');
    const bus = new LocalBus();
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    const writer = new BatchWriter(store, { maxRows: 1000, maxDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 50 });
    // the site of the second event resolves only after the deletion has run (a slow lookup)
    const ports = fixturePorts(SITES, GEO, clock.clock);
    let lookups = 0;
    let releaseLookup!: () => void;
    const lookupHeld = new Promise<void>((resolve) => (releaseLookup = resolve));
    const resolveSite = ports.sites.resolve.bind(ports.sites);
    ports.sites = { resolve: async (key) => ((lookups += 1) === 2 ? lookupHeld.then(() => resolveSite(key)) : resolveSite(key)) };
    const pipeline = new IngestPipeline({ ports, salts: new DailySalts(db, clock.clock), sessions: new SessionCache(), writer, store });
    const captured = captureLog('ingest', 'info');
    const subscription = await consumeSiteDeleted(store, bus, { forgetSite: (siteId) => writer.forgetSite(siteId) }, captured.log);
    // one event waits in a batch when the deletion comes (its timer a minute away), another is still being prepared
    const inBatch = pipeline.handle(collected({ ts: at(70), u: 'https://example.com/in-batch' }), false);
    const preparing = pipeline.handle(collected({ ts: at(71), u: 'https://example.com/preparing', ip: '203.0.113.7' }), false);
    // the writer's batch is private: peeked here only to know when an event has reached it
    const eventsInBatch = async () => (writer as unknown as { current: { eventSites: unknown[] } }).current.eventSites.length;
    await waitFor(eventsInBatch, (n) => n === 1);
    await bus.publish(SUBJECTS.siteDeleted, { site_id: 11, account_id: 1, tracking_key: 'livekey0001', deleted_at: NOW });
    await waitFor(
      async () => captured.records().filter((r) => r.msg === 'events, sessions and drop counts of a deleted site deleted').length,
      (n) => n === 1,
    );
    await inBatch; // its batch was finished before the deletion ran
    releaseLookup();
    await waitFor(eventsInBatch, (n) => n === 1);
    await writer.flush();
    await preparing; // settles (its message is acked) without a row written
    await writer.close();
    await subscription.stop();
    await bus.close();
    expect(await count('SELECT count() AS n FROM events WHERE site_id = 11')).toBe(0);
    expect(await count('SELECT count() AS n FROM sessions WHERE site_id = 11')).toBe(0);
  });

  it.each([
    { workers: 0, on: 'on the main thread' },
    { workers: 1, on: 'on a pipeline worker thread' },
  ])('deletes a deleted site’s events, sessions, drop counts and late-event days on site.deleted ($on)', async ({ workers }) => {
    for (const table of ['events', 'sessions', 'dropped_events', 'late_event_days']) await store.command(`TRUNCATE TABLE ${table}`);
    const bus = new LocalBus();
    const ingest = await start(bus, workers);
    await store.insert('late_event_days', [
      { site_id: 11, day: '2025-03-10' },
      { site_id: 13, day: '2025-03-10' },
    ]);
    await publishCollected(bus, collected({ ts: at(40) }));
    await publishCollected(bus, collected({ ts: at(40), ua: GOOGLEBOT }));
    // another site's drop count, which must stay
    await publishCollected(bus, collected({ ts: at(40), k: 'inactive0001' }));
    await waitFor(
      async () => count('SELECT count() AS n FROM events WHERE site_id = 11'),
      (n) => n >= 1,
    );
    await waitFor(
      () => count("SELECT sum(count) AS n FROM dropped_events WHERE site_id = 11 AND reason = 'bot'"),
      (n) => n >= 1,
    );
    await waitFor(
      () => count('SELECT sum(count) AS n FROM dropped_events WHERE site_id = 12'),
      (n) => n >= 1,
    );
    await bus.publish(SUBJECTS.siteDeleted, { site_id: 11, account_id: 1, tracking_key: 'livekey0001', deleted_at: NOW });
    await bus.publish(SUBJECTS.siteDeleted, { site_id: 11, account_id: 1, tracking_key: 'livekey0001', deleted_at: NOW });
    const left = await waitFor(
      async () =>
        (await count('SELECT count() AS n FROM events WHERE site_id = 11')) +
        (await count('SELECT count() AS n FROM sessions WHERE site_id = 11')) +
        (await count('SELECT count() AS n FROM dropped_events WHERE site_id = 11')) +
        (await count('SELECT count() AS n FROM late_event_days WHERE site_id = 11')),
      (n) => n === 0,
    );
    await ingest.stop();
    await bus.close();
    expect(left).toBe(0);
    expect(await count('SELECT count() AS n FROM dropped_events WHERE site_id <> 11')).toBeGreaterThan(0);
    expect(await count('SELECT count() AS n FROM late_event_days WHERE site_id = 13')).toBe(1);
  });
});
