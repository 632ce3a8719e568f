import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, trace, type SpanContext } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { PgDb } from '@sightline/db';
import type { EventStore } from '@sightline/event-store';
import { startTracing } from '@sightline/telemetry';
import { backendGate, captureLog, movableClock } from '@sightline/testkit';
import { DailySalts } from '../identity/daily-salts.js';
import { mapSiteResolver, site } from '../test-support/fixture-ports.js';
import { openIngestTestStores, type IngestTestStores } from '../test-support/ingest-stores.js';
import { PipelineThreads, type PipelineThreadsOptions } from './pipeline-threads.js';

const gate = await backendGate('postgres');
const NOW = '2025-03-10T12:00:00.000Z';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const at = (minutes: number) => new Date(Date.parse(NOW) - 3_600_000 + minutes * 60_000).toISOString();

/** A collected message as the bus hands it to pipeline workers: its JSON text. */
function pageview(visitor: number, minute: number, page: string): string {
  return JSON.stringify({
    k: 'threadkey001',
    n: 'pageview',
    u: `https://example.com${page}`,
    d: 'example.com',
    ts: at(minute),
    ip: `198.51.100.${visitor}`,
    ua: FIREFOX,
  });
}

// Every event of this file lies in the same hour before NOW: the rebuild after a worker
// dies takes the visits near the newest stored event, whichever site it belongs to.
describe.skipIf(!gate.available)('ingest pipeline worker threads', () => {
  let stores: IngestTestStores;
  let db: PgDb;
  let store: EventStore;
  const clock = movableClock(NOW);

  beforeAll(async () => {
    stores = await openIngestTestStores(gate.url, 'pipeline-threads');
    ({ db, store } = stores);
  });

  afterAll(async () => {
    await stores?.close();
  });

  /** Pipeline threads on this file's stores, small batches, fixture geo unless the test says otherwise. */
  function startThreads(
    options: Pick<PipelineThreadsOptions, 'workers' | 'shards' | 'sites' | 'log'> & Partial<PipelineThreadsOptions>,
  ): Promise<PipelineThreads> {
    return PipelineThreads.start({
      store,
      salts: new DailySalts(db, clock.clock),
      clock: clock.clock,
      config: { INGEST_BATCH_ROWS: 1000, INGEST_BATCH_MAX_DELAY_MS: 50 },
      geo: { kind: 'table', table: {} },
      ...options,
    });
  }

  it('workers locate visitors with DB-IP (the files the main thread read once, shared), as the main thread would', async () => {
    const threads = await startThreads({
      workers: 2,
      shards: [0, 1],
      sites: mapSiteResolver({ threadkey001: site({ site_id: 33 }) }),
      log: captureLog('ingest', 'info').log,
      geo: { kind: 'dbip' },
    });
    const from = (ip: string) =>
      JSON.stringify({ k: 'threadkey001', n: 'pageview', u: 'https://example.com/geo', d: 'example.com', ts: at(0), ip, ua: FIREFOX });
    try {
      // one visitor on each worker's shard
      await Promise.all([threads.handle(from('8.8.8.8'), false, 1, 0), threads.handle(from('217.0.0.1'), false, 2, 1)]);
    } finally {
      await threads.close();
    }
    const rows = await store.query('SELECT country, region, city FROM events WHERE site_id = 33 ORDER BY country');
    // expected values as libs/geo's own tests read them from the files by hand
    expect(rows).toEqual([
      { country: 'DE', region: 'DE-HE', city: 2925533 },
      { country: 'US', region: 'US-CA', city: 5375480 },
    ]);
  }, 60_000);

  it('INGEST_BATCH_ROWS is shared between the workers: with the engine free, each writes once it holds its share, as one thread would with all the events', async () => {
    // never by time here: only the rows can start a write
    const threads = await startThreads({
      workers: 2,
      shards: [0, 1],
      sites: mapSiteResolver({ threadkey001: site({ site_id: 35 }) }),
      log: captureLog('ingest', 'info').log,
      config: { INGEST_BATCH_ROWS: 4, INGEST_BATCH_MAX_DELAY_MS: 600_000 },
    });
    try {
      // a new visitor's pageview is 2 rows (the event, its visit's first version): one per worker fills its batch
      const stored = Promise.all([threads.handle(pageview(41, 5, '/share'), false, 1, 0), threads.handle(pageview(42, 5, '/share'), false, 2, 1)]);
      const late = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('not written: a worker waited for the whole INGEST_BATCH_ROWS')), 15_000).unref(),
      );
      await Promise.race([stored, late]);
    } finally {
      await threads.close();
    }
    expect(await store.query('SELECT count() AS n FROM events WHERE site_id = 35')).toEqual([{ n: 2 }]);
  }, 60_000);

  it("a backlog's messages (stored in the bus longer than INGEST_BATCH_MAX_DELAY_MS before their delivery) are batched to the whole INGEST_BATCH_ROWS by the workers", async () => {
    const threads = await startThreads({
      workers: 2,
      shards: [0, 1],
      sites: mapSiteResolver({ threadkey001: site({ site_id: 38 }) }),
      log: captureLog('ingest', 'info').log,
      config: { INGEST_BATCH_ROWS: 4, INGEST_BATCH_MAX_DELAY_MS: 600_000 },
    });
    let stored: Promise<unknown> | undefined;
    try {
      const anHourAgo = Date.now() - 3_600_000;
      stored = Promise.all([
        threads.handle(pageview(43, 5, '/backlog'), false, 1, 0, anHourAgo),
        threads.handle(pageview(44, 5, '/backlog'), false, 2, 1, anHourAgo),
      ]);
      // each worker holds its share, yet waits for more
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await store.query('SELECT count() AS n FROM events WHERE site_id = 38')).toEqual([{ n: 0 }]);
    } finally {
      // closing writes what waits
      await threads.close();
    }
    await stored;
    expect(await store.query('SELECT count() AS n FROM events WHERE site_id = 38')).toEqual([{ n: 2 }]);
  }, 60_000);

  it('closing writes what the workers hold and answers each of its events before the threads end (nothing left unacked or hanging)', async () => {
    const threads = await startThreads({
      workers: 2,
      shards: [0, 1],
      sites: mapSiteResolver({ threadkey001: site({ site_id: 37 }) }),
      log: captureLog('ingest', 'info').log,
      // neither rows nor time start a write here: only the close does
      config: { INGEST_BATCH_ROWS: 1000, INGEST_BATCH_MAX_DELAY_MS: 600_000 },
    });
    const stored = Promise.all([threads.handle(pageview(45, 5, '/close'), false, 1, 0), threads.handle(pageview(46, 5, '/close'), false, 2, 1)]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await threads.close();
    const answered = await Promise.race([stored.then(() => 'stored'), new Promise((resolve) => setTimeout(() => resolve('never answered'), 5_000).unref())]);
    expect(answered).toBe('stored');
    expect(await store.query('SELECT count() AS n FROM events WHERE site_id = 37')).toEqual([{ n: 2 }]);
  }, 60_000);

  it('a worker that cannot start fails the start (ingest does not come up half-working)', async () => {
    const start = startThreads({
      workers: 2,
      shards: [0, 1],
      sites: mapSiteResolver({}),
      log: captureLog('ingest', 'info').log,
      workerEntry: new URL('./test-fixtures/broken-pipeline-worker.ts', import.meta.url),
    });
    await expect(start).rejects.toThrow('broken pipeline worker module');
  }, 60_000);

  it('a site lookup that fails on the main thread fails its events (the bus redelivers them) and the worker stores them on the next delivery', async () => {
    let lookupsDown = true;
    const captured = captureLog('ingest', 'info');
    const sites = mapSiteResolver({ threadkey001: site({ site_id: 32 }) });
    const threads = await startThreads({
      workers: 4,
      shards: [3],
      sites: { resolve: (key) => (lookupsDown ? Promise.reject(new Error('sites service unavailable')) : sites.resolve(key)) },
      log: captured.log,
    });
    // no more workers than shards: a worker without a shard would hold its geo data for nothing
    expect(captured.records().find((r) => r.msg === 'the ingest pipeline runs on worker threads')?.workers).toBe(1);
    try {
      const raw = pageview(9, 0, '/x');
      await expect(threads.handle(raw, false, 1, 3)).rejects.toThrow('sites service unavailable');
      // a shard this process does not own is refused, not handed to some worker
      await expect(threads.handle(raw, false, 2, 4)).rejects.toThrow('event shard 4');
      lookupsDown = false;
      await threads.handle(raw, true, 1, 3);
    } finally {
      await threads.close();
    }
    expect(await store.query('SELECT count() AS n FROM events WHERE site_id = 32')).toEqual([{ n: 1 }]);
  }, 60_000);

  it.each([
    { site: 31, entry: 'dying-pipeline-worker.ts', replacement: 'starts at once' },
    // its replacement fails to load once, and the lane tries again after a pause
    { site: 34, entry: 'flaky-restart-pipeline-worker.ts', replacement: 'fails to start once' },
  ])(
    'a worker that dies between a batch’s events and sessions inserts ($replacement): the bus’s redeliveries are stored once and the visits come out whole',
    async ({ site: siteId, entry }) => {
      const captured = captureLog('ingest', 'info');
      const starts = await mkdtemp(path.join(os.tmpdir(), 'sightline-worker-starts-'));
      process.env.SIGHTLINE_TEST_WORKER_STARTS = starts;
      const threads = await startThreads({
        workers: 1,
        shards: [0],
        sites: mapSiteResolver({ threadkey001: site({ site_id: siteId }) }),
        log: captured.log,
        workerEntry: new URL(`./test-fixtures/${entry}`, import.meta.url),
      });
      // as the bus does: a message whose handling failed comes again, marked redelivered, with its sequence
      let seq = 0;
      const deliver = async (raw: string): Promise<'first' | 'again'> => {
        const streamSeq = (seq += 1);
        try {
          await threads.handle(raw, false, streamSeq, 0);
          return 'first';
        } catch {
          await threads.handle(raw, true, streamSeq, 0);
          return 'again';
        }
      };
      try {
        // three visitors, two pageviews each, stored; then two more each, in the batch during which the worker dies
        const first = await Promise.all([1, 2, 3].flatMap((v) => [pageview(v, 0, '/a'), pageview(v, 1, '/b')]).map(deliver));
        expect(first.every((d) => d === 'first')).toBe(true);
        const second = await Promise.all([1, 2, 3].flatMap((v) => [pageview(v, 2, v === 2 ? '/die' : '/c'), pageview(v, 3, '/d')]).map(deliver));
        expect(second).toEqual(Array(6).fill('again'));
        expect(captured.records().some((r) => r.msg === 'ingest pipeline worker stopped; starting a new one' && r.code === 70)).toBe(true);
        if (entry.startsWith('flaky')) {
          expect(
            captured
              .records()
              .filter((r) => r.msg === 'ingest pipeline worker could not be started; trying again')
              .map((r) => r.attempt),
          ).toEqual([0]);
        }
      } finally {
        await threads.close();
        delete process.env.SIGHTLINE_TEST_WORKER_STARTS;
        await rm(starts, { recursive: true, force: true });
      }
      const count = async (sql: string) => Number((await store.query<{ n: number }>(sql))[0]?.n);
      // the dead worker's events insert went in; their redeliveries found them and wrote none again
      expect(await count(`SELECT count() AS n FROM events WHERE site_id = ${siteId}`)).toBe(12);
      expect(await count(`SELECT uniqExact(visitor_id, pathname) AS n FROM events WHERE site_id = ${siteId}`)).toBe(12);
      // its sessions insert never happened: the new worker's rebuild repaired the three visits
      const visits = await store.query(
        `SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews, sum(duration * sign) AS duration FROM sessions WHERE site_id = ${siteId}`,
      );
      expect(visits).toEqual([{ visits: 3, pageviews: 12, duration: 3 * 180 }]);
    },
    60_000,
  );

  // last in the file: the tracer provider it starts is the process's from then on
  it('with tracing on, a worker’s batch spans are exported by the main thread: linked to each message’s consume span, and parents of the inserts the main thread runs', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = await startTracing({ exporter: 'none', serviceName: 'sightline-threads-test', spanExporter: exporter });
    const consumed: SpanContext[] = [];
    let spans: ReturnType<InMemorySpanExporter['getFinishedSpans']>;
    try {
      const threads = await startThreads({
        workers: 1,
        shards: [0],
        sites: mapSiteResolver({ threadkey001: site({ site_id: 36 }) }),
        log: captureLog('ingest', 'info').log,
      });
      try {
        // as start-ingest does: each message handled inside its consume span
        const tracer = trace.getTracer('test');
        await Promise.all(
          [1, 2].map((visitor) =>
            tracer.startActiveSpan('ingest consume', { kind: SpanKind.CONSUMER }, async (span) => {
              consumed.push(span.spanContext());
              try {
                await threads.handle(pageview(60 + visitor, 20, '/traced'), false, 700 + visitor, 0);
              } finally {
                span.end();
              }
            }),
          ),
        );
      } finally {
        await threads.close();
      }
      // read before the shutdown, which empties the in-memory exporter
      spans = exporter.getFinishedSpans();
    } finally {
      await tracing.shutdown();
    }
    const batches = spans.filter((s) => s.name === 'ingest batch write');
    expect(batches.map((s) => s.attributes['sightline.batch.stage']).sort()).toEqual(['events', 'sessions']);
    for (const batch of batches) {
      // a root of its own, linked to both messages, exported under the main thread's resource
      expect(batch.parentSpanContext).toBeUndefined();
      expect(batch.links.map((l) => l.context.spanId).sort()).toEqual(consumed.map((c) => c.spanId).sort());
      expect(batch.resource.attributes['service.name']).toBe('sightline-threads-test');
      expect(batch.instrumentationScope.name).toBe('@sightline/ingest');
      const inserts = spans.filter((s) => s.parentSpanContext?.spanId === batch.spanContext().spanId);
      expect(inserts.length).toBeGreaterThanOrEqual(1);
      for (const insert of inserts) {
        expect(insert.attributes['sightline.event_store.operation']).toBe('insert');
        expect(insert.spanContext().traceId).toBe(batch.spanContext().traceId);
      }
      const tables = inserts.map((s) => String(s.attributes['db.sql.table']));
      expect(tables).toContain(batch.attributes['sightline.batch.stage'] === 'events' ? 'events' : 'sessions');
    }
    expect(await store.query('SELECT count() AS n FROM events WHERE site_id = 36')).toEqual([{ n: 2 }]);
  }, 60_000);
});
