import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { collectedSubject, connectNatsBus, DEFAULT_EVENT_SHARDS, LocalBus, type Bus } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { PgDb, runMigrations } from '@sightline/db';
import { ChdbEventStore, runEventMigrations, type EncodedRows } from '@sightline/event-store';
import { DROPPED_EVENTS_TABLE, emptySessionAttributes, EVENTS_TABLE } from '@sightline/events-schema';
import { openGeoLookup } from '@sightline/geo';
import { systemClock } from '@sightline/runtime';
import { createLogger } from '@sightline/telemetry';
import { backendUrl, createTestDatabase, makeTempDir, natsServerInstalled, startPrivateNatsServer } from '@sightline/testkit';
import { createEnricher } from '../../apps/ingest/src/enrich/enricher.js';
import { INGEST_EVENT_MIGRATIONS_DIR, INGEST_MIGRATIONS_DIR, INGEST_SCHEMA } from '../../apps/ingest/src/migrations-dir.js';
import type { IngestPorts } from '../../apps/ingest/src/pipeline/ports.js';
import { SessionCache } from '../../apps/ingest/src/sessions/session-cache.js';
import { applyEvent } from '../../apps/ingest/src/sessions/sessionizer.js';
import { fromClickHouseTime } from '../../apps/ingest/src/sessions/clickhouse-time.js';
import { startIngest } from '../../apps/ingest/src/start-ingest.js';
import type { RowFormat } from '../../apps/ingest/src/writer/tab-separated-rows.js';
import { mapSiteResolver, site } from '../../apps/ingest/src/test-support/fixture-ports.js';
import { realisticTraffic, type Traffic } from './ingest-traffic.js';
import type { PublishOrder, PublisherWorkerData } from './nats-publisher-worker.js';
import { cpuShares, CORES, machineCpu, processCpuSeconds } from './machine-cpu.js';
import { decodeRows } from './decode-rows.js';
import { latencyByTenth, percentile, sustainedRate } from './run-rates.js';
import { publishCollected, sharedClockMs } from './publish-paced.js';

const TRACKING_KEY = 'benchkey0001';
/** publishes in flight at once (the gateway's concurrent requests) */
const PUBLISH_WINDOW = 2000;
/** rows of each table kept to replay the raw-insert baseline */
const BASELINE_SAMPLE_ROWS = 20_000;
/** BENCH_INGEST_WORKERS: the pipeline worker counts to run each bus with (INGEST_WORKERS; 0 = on the main thread), side by side */
const WORKER_COUNTS = (process.env.BENCH_INGEST_WORKERS ?? '0,2').split(',').map(Number);
/**
 * BENCH_INGEST_ROW_FORMATS: how the writer hands rows to chDB, side by side in one run:
 * 'json' (the row objects as JSON, the path before TabSeparated: the baseline) and 'tsv'
 */
const ROW_FORMATS = (process.env.BENCH_INGEST_ROW_FORMATS ?? 'json,tsv').split(',') as RowFormat[];
const FORMAT_LABEL: Record<RowFormat, string> = { json: 'JSON rows (before)', tsv: 'TSV rows' };
/** the warm-up: one unknown-key event per shard, so each pipeline (or worker) has loaded salts, geo and visits before the timing */
const WARM_UP_KEY = 'unknownkey00';

interface InsertCall {
  table: string;
  rows: number;
  /** the rows as the pipeline encoded them (pipeline workers, TabSeparated): the baseline inserts these bytes again */
  encoded?: EncodedRows;
}

interface RunResult {
  published: number;
  stored: number;
  dropped: number;
  seconds: number;
  insertMs: number;
  calls: InsertCall[];
  samples: Map<string, Record<string, unknown>[]>;
  /** publish → queryable ms of every stored event, sorted (filled at the end of the run) */
  latencies: number[];
  /** [publish time, publish → queryable ms] per stored event, in store order */
  latencyBySend: [number, number][];
  bytes?: { events: number; sessions: number };
  dropReasons?: string;
  /** CPU time of the whole process (JS, chDB threads, publishing) during the run */
  cpuSeconds?: number;
  /** shares of all the machine's core time during the run that were busy (every process) and stolen by the hypervisor */
  machine?: { busy: number; steal: number };
  /** CPU time of the private nats-server during the run */
  natsServerCpuSeconds?: number;
  /** share of the run the main thread's event loop was busy */
  eventLoopBusy?: number;
  /** events/s between 10 % and 90 % of the events stored (see sustainedRate) */
  sustainedPerSecond?: number;
  /** backlog: from ingest's start to its first events stored (ms), start-up (threads, geo data, visits) included */
  firstStoredMs?: number;
  topColumns?: string;
}

const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * Ingest end to end (publish → bus → ingest → chDB, queryable) on a realistic data
 * set (load-tests/bench/ingest-traffic.ts), on the in-process bus and on NATS
 * JetStream (a private nats-server: stream and durable names are the product's, a
 * shared server's other users would take our events). On NATS the publisher runs in
 * a worker thread, as a gateway publishes from a process of its own; the local bus
 * lives in one process, so there it shares ingest's thread, as in `npm start`. CPU
 * figures are the whole process's, publisher included. Per composition:
 * - flood: every event published as fast as the bus takes them; events/s from the
 *   first publish to the last row stored, zero-loss check (stored + dropped =
 *   published), p50/p99 publish → queryable;
 * - backlog: the flood's events published first with ingest stopped, then ingest
 *   started and timed alone until it has stored them — one ingest process's capacity
 *   with no publisher on its cores (microservices mode; sizing);
 * - paced: published at BENCH_INGEST_RATE events/s (default 10 000), whose p50/p99
 *   latency is the one the realtime window depends on (≤ 2 s);
 * - baseline, same run: the same number of rows inserted straight into chDB in the
 *   same batch sizes, so the pipeline's cost over the raw insert shows as a ratio.
 * Then bytes per event on disk (events + sessions, active parts) and the heap of
 * 100 000 live sessions. Needs PostgreSQL (the daily salts).
 */
export async function benchIngest(): Promise<Record<string, string | number>> {
  const total = Number(process.env.BENCH_INGEST_EVENTS ?? 200_000);
  const paced = Number(process.env.BENCH_INGEST_PACED_EVENTS ?? 100_000);
  const rate = Number(process.env.BENCH_INGEST_RATE ?? 10_000);
  const buses = (process.env.BENCH_INGEST_BUSES ?? 'local,nats').split(',');
  const dir = await makeTempDir('sightline-bench-ingest-');
  const testDb = await createTestDatabase(backendUrl('postgres'), 'sightline_bench_ingest');
  const db = new PgDb(testDb.url);
  const figures: Record<string, string | number> = {};
  const geo = await openGeoLookup();
  let run = 0;
  try {
    await runMigrations(db, { schema: INGEST_SCHEMA, dir: INGEST_MIGRATIONS_DIR });
    const flood = realisticTraffic({ events: total, seed: 1, trackingKey: TRACKING_KEY, botShare: 0.02, endAt: Date.now() - 60_000 });
    const steady = realisticTraffic({ events: paced, seed: 2, trackingKey: TRACKING_KEY, botShare: 0.02, endAt: Date.now() - 60_000 });
    figures['data set: events / visits / bot events (flood run)'] = `${flood.messages.length} / ${flood.sessions} / ${flood.expectedDrops}`;
    /** CPU µs per stored event of each composition's runs, per row format: the A/B summary at the end */
    const perEvent = new Map<string, Partial<Record<RowFormat, { flood: number; backlog: number }>>>();
    for (const [kind, workers, rowFormat] of buses.flatMap((bus) =>
      WORKER_COUNTS.flatMap((count) => ROW_FORMATS.map((format) => [bus, count, format] as const)),
    )) {
      if (kind === 'nats' && !natsServerInstalled()) {
        figures['NATS JetStream'] = 'skipped: no nats-server binary on PATH';
        continue;
      }
      const composition = `${kind === 'nats' ? 'chDB + NATS JetStream' : 'chDB + LocalBus'}${workers > 0 ? `, ${workers} pipeline worker${workers > 1 ? 's' : ''}` : ''}`;
      const label = ROW_FORMATS.length > 1 ? `${composition}, ${FORMAT_LABEL[rowFormat]}` : composition;
      const openBus = async (): Promise<OpenedBus> => {
        if (kind !== 'nats') {
          const bus = new LocalBus();
          return { bus, close: () => bus.close() };
        }
        const server = await startPrivateNatsServer();
        const bus = await connectNatsBus(server.url, { name: 'bench-ingest' });
        return {
          bus,
          close: async () => (await bus.close(), await server.stop()),
          natsUrl: server.url,
          ...(server.pid === undefined ? {} : { serverPid: server.pid }),
        };
      };
      const ports: IngestPorts = { sites: mapSiteResolver({ [TRACKING_KEY]: site({ site_id: 1 }) }), enricher: createEnricher(), geo, clock: systemClock };

      const loadBefore = load();
      const floodRun = await runPipeline({
        dir: dir.path,
        database: `run${(run += 1)}`,
        db,
        ports,
        workers,
        rowFormat,
        openBus,
        traffic: flood,
        measureBytes: kind !== 'nats' && workers === WORKER_COUNTS[0] && rowFormat === ROW_FORMATS.at(-1),
      });
      const baselineMs = await rawInsertBaseline(dir.path, `base${run}`, floodRun);
      reportLoss(figures, `${label}, flood`, floodRun, flood);
      figures[`${label}, flood: events/s stored end to end (load ${loadBefore})`] = Math.round(floodRun.published / floodRun.seconds);
      if (floodRun.sustainedPerSecond) figures[`${label}, flood: events/s sustained (10 % → 90 % of the events stored)`] = floodRun.sustainedPerSecond;
      // load-independent: what the run cost in CPU (publisher, bus, ingest, chDB), so events/s per core
      figures[`${label}, flood: CPU s (all threads) / events per CPU-second`] =
        `${floodRun.cpuSeconds!.toFixed(1)} / ${Math.round(floodRun.published / floodRun.cpuSeconds!)}`;
      reportMachine(figures, `${label}, flood`, floodRun);
      figures[`${label}, flood: p50/p99 publish → queryable (ms; a backlog, not a latency)`] =
        `${Math.round(percentile(floodRun.latencies, 50))}/${Math.round(percentile(floodRun.latencies, 99))}`;
      figures[`${label}, flood: time with a chDB insert in flight (ms of ms / calls / rows)`] =
        `${Math.round(floodRun.insertMs)} of ${Math.round(floodRun.seconds * 1000)} / ${floodRun.calls.length} / ${floodRun.calls.reduce((s, c) => s + c.rows, 0)}`;
      figures[`${label}, baseline: same rows straight into chDB, same batches (ms)`] = Math.round(baselineMs);
      figures[`${label}, ratio: pipeline time / raw insert time`] = ((floodRun.seconds * 1000) / baselineMs).toFixed(2);
      if (floodRun.bytes) {
        const perEvent = (floodRun.bytes.events + floodRun.bytes.sessions) / floodRun.stored;
        // compact (small) parts keep all columns in one file and report no per-column size
        figures['  largest columns (compressed B/event, wide parts only)'] = floodRun.topColumns || 'none: only compact parts';
        figures[`bytes per stored event on disk: events + sessions (${floodRun.stored} events)`] =
          `${perEvent.toFixed(1)} (events ${(floodRun.bytes.events / floodRun.stored).toFixed(1)}, sessions ${(floodRun.bytes.sessions / floodRun.stored).toFixed(1)})`;
      }

      // ingest alone: the same events drained from a backlog, no publisher in the process
      const loadBacklog = load();
      const backlogRun = await runPipeline({
        dir: dir.path,
        database: `run${(run += 1)}`,
        db,
        ports,
        workers,
        rowFormat,
        openBus,
        traffic: flood,
        backlog: true,
        measureBytes: false,
      });
      reportLoss(figures, `${label}, backlog`, backlogRun, flood);
      figures[`${label}, backlog: ingest alone drains it, events/s stored (load ${loadBacklog})`] = Math.round(backlogRun.published / backlogRun.seconds);
      if (backlogRun.sustainedPerSecond) figures[`${label}, backlog: events/s sustained (10 % → 90 % of the events stored)`] = backlogRun.sustainedPerSecond;
      // the end-to-end figure holds it: threads started, geo data read (by each worker), visits rebuilt
      if (backlogRun.firstStoredMs !== undefined)
        figures[`${label}, backlog: ingest's start to its first events stored (ms)`] = Math.round(backlogRun.firstStoredMs);
      figures[`${label}, backlog: CPU s (all threads) / events per CPU-second`] =
        `${backlogRun.cpuSeconds!.toFixed(1)} / ${Math.round(backlogRun.published / backlogRun.cpuSeconds!)}`;
      reportMachine(figures, `${label}, backlog`, backlogRun);
      const microseconds = (result: RunResult): number => (result.cpuSeconds! * 1e6) / result.stored;
      perEvent.set(composition, { ...perEvent.get(composition), [rowFormat]: { flood: microseconds(floodRun), backlog: microseconds(backlogRun) } });

      if (paced === 0) continue;
      const loadPaced = load();
      const pacedRun = await runPipeline({
        dir: dir.path,
        database: `run${(run += 1)}`,
        db,
        ports,
        workers,
        rowFormat,
        openBus,
        traffic: steady,
        ratePerSecond: rate,
        measureBytes: false,
      });
      reportLoss(figures, `${label}, paced`, pacedRun, steady);
      figures[`${label}, paced at ${rate}/s: events/s stored (load ${loadPaced})`] = Math.round(pacedRun.published / pacedRun.seconds);
      reportMachine(figures, `${label}, paced`, pacedRun);
      // live traffic: a batch holds about a second of it, so a visit's versions rarely meet in one batch and cancel
      const pacedRows = pacedRun.calls.reduce((sum, c) => sum + c.rows, 0);
      figures[`${label}, paced: insert calls / rows (rows per stored event)`] =
        `${pacedRun.calls.length} / ${pacedRows} (${(pacedRows / pacedRun.stored).toFixed(2)})`;
      figures[`${label}, paced at ${rate}/s: p50/p99 publish → queryable (ms)`] =
        `${Math.round(percentile(pacedRun.latencies, 50))}/${Math.round(percentile(pacedRun.latencies, 99))}`;
      // a pipeline slower than the rate builds a backlog, so its latency climbs through the run
      // (the first tenth holds the warm-up, the last the final partial batch's wait)
      const tenths = latencyByTenth(pacedRun.latencyBySend);
      const climb = tenths[8]! - tenths[1]!;
      figures[`${label}, paced at ${rate}/s: p50 by tenth of the run, first → last (ms)`] = tenths.join(' ');
      // below 5 s a tenth is shorter than a batch's wait (≤ 1 s), so the tenths show batching, not a backlog
      const longEnough = paced / rate >= 5;
      figures[`${label}, paced at ${rate}/s: kept up (p50 of the 9th tenth − the 2nd)`] = longEnough
        ? `${climb <= 250 ? 'yes' : 'NO, a backlog grew'}: ${climb} ms`
        : `run too short to tell (< 5 s): ${climb} ms`;
    }
    // A/B in this run: what each stored event cost in CPU, the process's every thread (chDB's
    // insert threads included); the backlog's is ingest alone, the flood's includes the publisher
    for (const [composition, formats] of perEvent) {
      const { json: before, tsv: after } = formats;
      if (!before || !after) continue;
      for (const run of ['backlog', 'flood'] as const) {
        figures[`A/B ${composition}, ${run}: CPU µs per stored event, JSON rows → TSV rows (after / before)`] =
          `${before[run].toFixed(1)} → ${after[run].toFixed(1)} (${(after[run] / before[run]).toFixed(2)})`;
      }
    }
  } finally {
    await db.close();
    await testDb.drop();
    await dir.remove();
  }
  Object.assign(figures, liveSessionMemory());
  return figures;
}

/**
 * What bounded the run: ingest's event loop (the thread that parses, enriches,
 * sessionizes and encodes every event) and the machine's cores, which the NATS
 * server, the publisher and chDB's threads share with it. A run that fell behind
 * with its event loop near 100 % and cores to spare was bounded by that one thread,
 * not by the machine, nor by waiting (inserts, acks).
 */
function reportMachine(figures: Record<string, string | number>, label: string, result: RunResult): void {
  const pct = (share: number): string => `${(100 * share).toFixed(0)} %`;
  // on the local bus the publisher shares the loop, as the gateway does in `npm start`
  if (result.eventLoopBusy !== undefined) figures[`${label}: ingest's event loop busy`] = pct(result.eventLoopBusy);
  if (!result.machine) return;
  const server = result.natsServerCpuSeconds === undefined ? '' : `, nats-server ${pct(result.natsServerCpuSeconds / result.seconds / CORES)}`;
  const of = result.natsServerCpuSeconds === undefined ? '' : ' (of it nats-server)';
  figures[`${label}: machine's ${CORES} cores busy${of} / stolen by the hypervisor`] = `${pct(result.machine.busy)}${server} / ${pct(result.machine.steal)}`;
}

function reportLoss(figures: Record<string, string | number>, label: string, result: RunResult, traffic: Traffic): void {
  const lost = result.published - result.stored - result.dropped;
  figures[`${label}: zero loss (stored + dropped = published)`] =
    `${lost === 0 ? 'yes' : 'NO'}: ${result.stored} + ${result.dropped} of ${result.published} (drops: ${result.dropReasons}; bot visitors' events ${traffic.expectedDrops})`;
}

interface RunOptions {
  dir: string;
  database: string;
  db: PgDb;
  ports: IngestPorts;
  /** INGEST_WORKERS */
  workers: number;
  rowFormat: RowFormat;
  openBus: () => Promise<OpenedBus>;
  traffic: Traffic;
  /** publish at this rate; as fast as possible when absent */
  ratePerSecond?: number;
  /**
   * Publish every message first with ingest stopped, then time ingest alone draining
   * the backlog: what one ingest process stores per second with no publisher (or
   * gateway) sharing its cores, as in microservices mode. No latency figures.
   */
  backlog?: boolean;
  measureBytes: boolean;
}

async function runPipeline(options: RunOptions): Promise<RunResult> {
  const store = await ChdbEventStore.open({ path: path.join(options.dir, 'chdb'), database: options.database });
  const { bus, close, natsUrl, serverPid } = await options.openBus();
  const messages = options.traffic.messages;
  /** [event time, when its row was stored], joined with the publish times after the run */
  const storedAt: [number, number][] = [];
  let publisher: Awaited<ReturnType<typeof startPublisherWorker>> | undefined;
  const result: RunResult = {
    published: messages.length,
    stored: 0,
    dropped: 0,
    seconds: 0,
    insertMs: 0,
    calls: [],
    samples: new Map(),
    latencies: [],
    latencyBySend: [],
  };
  /** events stored or dropped (counted by reason): the run ends when every message is one of the two */
  let settled = 0;
  /** warm-up events stored (as drops) */
  let warmedUp = 0;
  let allStored: () => void = () => {};
  const done = new Promise<void>((resolve) => (allStored = resolve));
  try {
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    // queryable = the insert returned (chDB inserts synchronously: a query after it sees the rows)
    // the writer overlaps a batch's sessions with the next batch's events: count the time with any insert in flight
    let inserting = 0;
    let insertingSince = 0;
    const timed = async (insert: () => Promise<void>): Promise<void> => {
      if (inserting++ === 0) insertingSince = performance.now();
      try {
        await insert();
      } finally {
        if (--inserting === 0) result.insertMs += performance.now() - insertingSince;
      }
    };
    const stored = (table: string, rows: readonly Record<string, unknown>[], at: number): void => {
      const sample = result.samples.get(table) ?? [];
      if (sample.length < BASELINE_SAMPLE_ROWS) result.samples.set(table, sample.concat(rows.slice(0, BASELINE_SAMPLE_ROWS - sample.length)));
      if (table === EVENTS_TABLE) for (const row of rows) storedAt.push([fromClickHouseTime(row.timestamp as string), at]);
    };
    const settle = (table: string, count: number, rows: () => readonly Record<string, unknown>[]): void => {
      if (table === DROPPED_EVENTS_TABLE) {
        for (const row of rows()) {
          if (row.reason !== 'unknown_site') settled += Number(row.count);
          else warmedUp += Number(row.count);
        }
      } else if (table === EVENTS_TABLE) settled += count;
      if (settled >= messages.length) allStored();
    };
    // the pipeline on this thread inserts rows
    const insert = store.insert.bind(store);
    store.insert = async (table, rows) => {
      await timed(() => insert(table, rows));
      result.calls.push({ table, rows: rows.length });
      stored(table, rows, sharedClockMs());
      settle(table, rows.length, () => rows);
    };
    // pipeline workers send rows encoded: decoded after the run (events) or when small (drop counts), not on the timed thread
    const insertEncoded = store.insertEncoded.bind(store);
    const encodedStored: { table: string; rows: EncodedRows; at: number }[] = [];
    store.insertEncoded = async (table, rows) => {
      await timed(() => insertEncoded(table, rows));
      result.calls.push({ table, rows: rows.rows, encoded: rows });
      encodedStored.push({ table, rows, at: sharedClockMs() });
      settle(table, rows.rows, () => decodeRows(rows));
    };
    const decodeEncodedStored = (): void => {
      for (const { table, rows, at } of encodedStored.splice(0)) stored(table, decodeRows(rows), at);
    };
    const config = {
      ...loadConfig({}),
      INGEST_BATCH_ROWS: Number(process.env.BENCH_BATCH_ROWS ?? 5000),
      INGEST_BATCH_MAX_DELAY_MS: 1000,
      EVENT_SHARDS: DEFAULT_EVENT_SHARDS,
      INGEST_REPLICAS: 1,
      INGEST_WORKERS: options.workers,
    };
    const startPipeline = () =>
      startIngest(
        { config, log: createLogger({ level: 'silent' }), clock: systemClock, db: options.db, events: store, bus },
        { ports: options.ports, rowFormat: options.rowFormat },
      );
    let ingest = await startPipeline();
    // warm up outside the timing: the first event loads the salts and rebuilds the (empty) visits
    // (one per shard: with pipeline workers, each warms up on its own first event)
    for (let shard = 0; shard < DEFAULT_EVENT_SHARDS; shard += 1) {
      await bus.publish(collectedSubject(shard), {
        k: WARM_UP_KEY,
        n: 'pageview',
        u: 'https://example.com/',
        d: 'example.com',
        ts: new Date().toISOString(),
        ip: '192.0.2.1',
        ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
      });
    }
    for (const deadline = performance.now() + 30_000; warmedUp < DEFAULT_EVENT_SHARDS && performance.now() < deadline;)
      await new Promise((r) => setTimeout(r, 100));
    if (warmedUp < DEFAULT_EVENT_SHARDS) throw new Error(`the warm-up events were not all stored within 30 s (${warmedUp} of ${DEFAULT_EVENT_SHARDS})`);
    result.calls.length = 0;
    result.insertMs = 0;
    // what the warm-up stored is no part of the run
    encodedStored.length = 0;
    result.samples.clear();
    storedAt.length = 0;

    // as the gateway does: each event to its visitor's shard, many requests in flight;
    // on NATS from a worker thread, as a gateway publishes from a process of its own
    publisher = natsUrl ? await startPublisherWorker({ url: natsUrl, messages, shards: DEFAULT_EVENT_SHARDS, window: PUBLISH_WINDOW }) : undefined;
    let publishTimes: Float64Array | undefined;
    const publishAll = async (from: number): Promise<void> => {
      publishTimes = publisher
        ? await publisher.publish({ from, ratePerSecond: options.ratePerSecond })
        : await publishCollected(bus, messages, { shards: DEFAULT_EVENT_SHARDS, from, ratePerSecond: options.ratePerSecond, window: PUBLISH_WINDOW });
    };
    if (options.backlog) {
      await ingest.stop();
      await publishAll(sharedClockMs());
    }

    const profiler = process.env.BENCH_INGEST_PROFILE ? await startProfiler() : undefined;
    const cpuBefore = process.cpuUsage();
    const machineBefore = machineCpu();
    const loopBefore = performance.eventLoopUtilization();
    const serverCpuBefore = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
    const started = performance.now();
    const startedAt = sharedClockMs();
    if (options.backlog) ingest = await startPipeline();
    else await publishAll(sharedClockMs());
    // every message stored or dropped; gives up only when nothing moved for 60 s (a loss then shows in the check)
    for (let seen = -1, idleSince = performance.now(); ;) {
      const moved = await Promise.race([done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 1000))]);
      if (moved) break;
      if (settled !== seen) [seen, idleSince] = [settled, performance.now()];
      else if (performance.now() - idleSince > 60_000) break;
    }
    result.seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    result.cpuSeconds = (cpu.user + cpu.system) / 1e6;
    result.machine = cpuShares(machineBefore, machineCpu());
    result.eventLoopBusy = performance.eventLoopUtilization(loopBefore).utilization;
    if (serverCpuBefore !== undefined) result.natsServerCpuSeconds = processCpuSeconds(serverPid!) - serverCpuBefore;
    await profiler?.(`${process.env.BENCH_INGEST_PROFILE}/${options.database}.cpuprofile`);
    await ingest.stop();
    decodeEncodedStored();

    const [counts] = await store.query<{ stored: number }>('SELECT count() AS stored FROM events');
    result.stored = Number(counts?.stored);
    const drops = await store.query<{ reason: string; n: number }>(
      "SELECT reason, sum(count) AS n FROM dropped_events WHERE reason != 'unknown_site' GROUP BY reason ORDER BY reason",
    );
    result.dropped = drops.reduce((sum, d) => sum + Number(d.n), 0);
    result.dropReasons = drops.map((d) => `${d.reason} ${d.n}`).join(', ');
    if (!options.backlog && publishTimes) {
      const publishedAt = new Map<number, number>();
      for (let i = 0; i < messages.length; i += 1) publishedAt.set(Date.parse(messages[i]!.ts), publishTimes[i]!);
      for (const [eventTime, stored] of storedAt) {
        const sent = publishedAt.get(eventTime);
        if (sent !== undefined) result.latencyBySend.push([sent, stored - sent]);
      }
    }
    result.latencies = result.latencyBySend.map(([, ms]) => ms).sort((a, b) => a - b);
    result.sustainedPerSecond = sustainedRate(storedAt.map(([, at]) => at));
    if (options.backlog && storedAt.length > 0) result.firstStoredMs = storedAt.reduce((first, [, at]) => Math.min(first, at), Infinity) - startedAt;
    if (options.measureBytes) {
      await store.command('OPTIMIZE TABLE events FINAL');
      await store.command('OPTIMIZE TABLE sessions FINAL');
      const parts = await store.query<{ table: string; bytes: number }>(
        "SELECT table, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = currentDatabase() AND table IN ('events', 'sessions') AND active GROUP BY table",
      );
      const of = (t: string): number => Number(parts.find((p) => p.table === t)?.bytes ?? 0);
      result.bytes = { events: of('events'), sessions: of('sessions') };
      const columns = await store.query<{ table: string; name: string; bytes: number }>(
        "SELECT table, column AS name, sum(column_data_compressed_bytes) AS bytes FROM system.parts_columns WHERE database = currentDatabase() AND table IN ('events', 'sessions') AND active GROUP BY table, name HAVING bytes > 0 ORDER BY bytes DESC LIMIT 12",
      );
      result.topColumns = columns.map((c) => `${c.table}.${c.name} ${(Number(c.bytes) / Math.max(1, result.stored)).toFixed(1)}`).join(', ');
    }
  } finally {
    await publisher?.stop();
    await close();
    await store.close();
  }
  return result;
}

interface OpenedBus {
  bus: Bus;
  close: () => Promise<void>;
  /** set for NATS: the publisher then runs in a worker thread with its own connection */
  natsUrl?: string;
  /** set for NATS: the private server's process, whose CPU the run reports */
  serverPid?: number;
}

/** The NATS publisher thread, connected: `publish` sends every message once; `stop` ends the thread (also after a failure). */
async function startPublisherWorker(
  data: PublisherWorkerData,
): Promise<{ publish: (order: PublishOrder) => Promise<Float64Array>; stop: () => Promise<void> }> {
  // The bench runs under tsx (`node --import tsx`), whose loader a worker thread does not
  // inherit on Node 20: the thread registers it before importing its TypeScript entry.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./nats-publisher-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: data });
  const failed = new Promise<never>((_resolve, reject) => worker.once('error', reject));
  failed.catch(() => {});
  const stop = async () => void (await worker.terminate());
  try {
    await Promise.race([once(worker, 'message'), failed]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    publish: async (order) => {
      worker.postMessage(order);
      const [{ times }] = (await Promise.race([once(worker, 'message'), failed])) as [{ times: Float64Array }];
      return times;
    },
    stop,
  };
}

/** BENCH_INGEST_PROFILE=<dir>: a CPU profile and an allocation-sampling heap profile of each timed run only (set-up and the other runs left out). */
async function startProfiler(): Promise<(file: string) => Promise<void>> {
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await session.post('HeapProfiler.enable');
  // allocation sampling beside the CPU profile: GC is the largest single cost of ingest
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 64 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    const { profile: heap } = await session.post('HeapProfiler.stopSampling');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(profile));
    await writeFile(file.replace(/\.cpuprofile$/, '.heapprofile'), JSON.stringify(heap));
    session.disconnect();
  };
}

/**
 * The pipeline's insert calls replayed straight into a fresh database: same tables, same
 * batch sizes, the same encoded bytes where the pipeline handed bytes (else sampled rows).
 */
async function rawInsertBaseline(dir: string, database: string, run: RunResult): Promise<number> {
  const store = await ChdbEventStore.open({ path: path.join(dir, 'chdb'), database });
  try {
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    const offsets = new Map<string, number>();
    const started = performance.now();
    for (const call of run.calls) {
      if (call.encoded) {
        await store.insertEncoded(call.table, call.encoded);
        continue;
      }
      const sample = run.samples.get(call.table)!;
      let at = offsets.get(call.table) ?? 0;
      const rows: Record<string, unknown>[] = [];
      for (let i = 0; i < call.rows; i += 1, at = (at + 1) % sample.length) rows.push(sample[at]!);
      offsets.set(call.table, at);
      await store.insert(call.table, rows);
    }
    return performance.now() - started;
  } finally {
    await store.close();
  }
}

/**
 * A full collection even without --expose-gc: the heap left by the timed runs would
 * otherwise be collected during the measurement and the growth come out negative.
 */
function exposedGc(): () => void {
  if (typeof global.gc === 'function') return global.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** The heap that 100 000 live visits hold in the session cache. */
function liveSessionMemory(): Record<string, string | number> {
  const gc = exposedGc();
  gc();
  const before = process.memoryUsage();
  const cache = new SessionCache();
  const t0 = Date.now();
  for (let i = 0; i < 100_000; i += 1) {
    const step = applyEvent(undefined, {
      site_id: 1,
      at: t0 + i,
      name: 'pageview',
      visitor_id: String(1_000_000_000_000 + i),
      marker: `tab-${i}`,
      hostname: 'example.com',
      pathname: `/p/${i % 300}`,
      prop_keys: [],
      prop_values: [],
      engagement_ms: 0,
      scroll_depth: 255,
      status_code: 0,
      import_id: 0,
      attributes: {
        ...emptySessionAttributes(),
        referrer: 'https://news.example.net/',
        source: 'news.example.net',
        channel: 'Referral',
        country: 'DE',
        region: 'DE-BE',
        city: 2950159,
        browser: 'Firefox',
        browser_version: '120.0',
        os: 'GNU/Linux',
        device: 'Desktop',
        screen: 'Desktop',
      },
    });
    cache.put(step.session!, step.session!.visitor_id);
  }
  gc();
  const after = process.memoryUsage();
  return {
    '100 000 live sessions: heap growth (MiB)': ((after.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1),
    '100 000 live sessions: process RSS (MiB, chDB included)': (after.rss / 2 ** 20).toFixed(1),
    'live sessions held': cache.size,
  };
}
