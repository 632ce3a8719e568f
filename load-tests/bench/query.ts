import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@sightline/config';
import { ROLLUP_TABLES } from '@sightline/events-schema';
import type { EventStore } from '@sightline/event-store';
import { startSightline } from '@sightline/launcher';
import { intlGeoLabels, runQuery } from '@sightline/query';
import { parseQueryRequest } from '@sightline/query-contract';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS } from './auth.js';
import { generateQueryData } from './query-data.js';

const EVENTS = Number(process.env.QUERY_BENCH_EVENTS ?? 10_000_000);
/**
 * Optional: several data set sizes in one run (e.g. `1000000,10000000,100000000`), each
 * in its own data dir (`QUERY_BENCH_DATA_DIR/events-<n>` when kept), reported side by side.
 */
const SIZES = (process.env.QUERY_BENCH_SIZES ?? String(EVENTS))
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
const RUNS = Number(process.env.QUERY_BENCH_RUNS ?? 15);
const SEED = Number(process.env.QUERY_BENCH_SEED ?? 42);
const TIMEZONE = 'Europe/Berlin';
/**
 * Optional: a kept data dir (PGlite + chDB) reused across runs, so 10M events are not
 * regenerated each time. Reused only when events and seed match; the data then ends
 * when it was generated, so the realtime shape reads an empty window.
 */
const DATA_DIR = process.env.QUERY_BENCH_DATA_DIR;
/** Optional: only the shapes whose label contains this text. */
const ONLY = process.env.QUERY_BENCH_ONLY;

/** What a kept data dir needs to be queried again (the owner's key, the sites). */
interface KeptDataSet {
  events: number;
  seed: number;
  token: string;
  siteIds: number[];
  generatedAtMs: number;
  figures: Record<string, string | number>;
}

/** The shapes the requirement lists (issue 12, "Speed"). */
const SHAPES: Array<[string, Record<string, unknown>]> = [
  [
    'aggregate 30d, 7 core metrics',
    { metrics: ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit', 'engagement_time'], date_range: '30d' },
  ],
  ['time series by day 30d', { metrics: ['visitors', 'pageviews', 'visits', 'bounce_rate'], date_range: '30d', dimensions: ['time:day'] }],
  ['time series by hour 7d', { metrics: ['visitors', 'pageviews', 'visits'], date_range: '7d', dimensions: ['time:hour'] }],
  ['breakdown event:page 30d', { metrics: ['visitors', 'pageviews', 'bounce_rate'], date_range: '30d', dimensions: ['event:page'] }],
  ['breakdown visit:source 30d', { metrics: ['visitors', 'bounce_rate', 'visit_duration'], date_range: '30d', dimensions: ['visit:source'] }],
  ['breakdown visit:country 30d (labels)', { metrics: ['visitors'], date_range: '30d', dimensions: ['visit:country'] }],
  [
    'breakdown event:page, country=DE 30d',
    {
      metrics: ['visitors', 'pageviews', 'bounce_rate'],
      date_range: '30d',
      dimensions: ['event:page'],
      filters: [{ field: 'country', operator: 'is', values: ['DE'] }],
    },
  ],
  ['aggregate 30d + compare previous_period', { metrics: ['visitors', 'visits', 'bounce_rate'], date_range: '30d', compare: 'previous_period' }],
  ['breakdown event:goal 30d', { metrics: ['visitors', 'events', 'conversion_rate'], date_range: '30d', dimensions: ['event:goal'] }],
  ['realtime by minute', { metrics: ['visitors', 'pageviews'], date_range: 'realtime', dimensions: ['time:minute'] }],
  // the counting rules of issue 29: ranked by the exit rate itself; hostnames grouped per event
  ['counting: exit pages by exit_rate 30d', { metrics: ['exit_rate', 'visits'], date_range: '30d', dimensions: ['visit:exit_page'] }],
  ['counting: event:hostname 30d', { metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate'], date_range: '30d', dimensions: ['event:hostname'] }],
];

/**
 * The dashboard's first load (share page, period 30d, every panel's first tab, no
 * compare): the bodies apps/dashboard sends (state/requests.ts, catalogue.ts; 9 rows
 * per panel, 300 for the map), all at once as the page sends them.
 */
const ATTRIBUTE_METRICS = ['visitors', 'bounce_rate', 'visit_duration'];
export const DASHBOARD_FIRST_LOAD: Array<Record<string, unknown>> = [
  { metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'], date_range: '30d' },
  { metrics: ['visitors'], date_range: '30d', dimensions: ['time:day'] },
  { metrics: ATTRIBUTE_METRICS, date_range: '30d', dimensions: ['visit:channel'], limit: 9 },
  { metrics: ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'], date_range: '30d', dimensions: ['event:page'], limit: 9 },
  { metrics: ATTRIBUTE_METRICS, date_range: '30d', dimensions: ['visit:country'], limit: 300 },
  { metrics: ATTRIBUTE_METRICS, date_range: '30d', dimensions: ['visit:browser'], limit: 9 },
  { metrics: ['visitors', 'events', 'conversion_rate'], date_range: '30d', dimensions: ['event:goal'], limit: 9 },
  { metrics: ['visitors'], date_range: 'realtime' },
];

/** Records the statements a query ran, so they can be timed again without the pipeline. */
function recording(store: EventStore, log: Array<[string, Record<string, unknown>]>): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'query') return (sql: string, params: Record<string, unknown> = {}) => (log.push([sql, params]), target.query(sql, params));
      return Reflect.get(target, prop, receiver);
    },
  });
}

/** The store with one statement at a time, as the pipeline ran a query's statements before they overlapped. */
function oneAtATime(store: EventStore): EventStore {
  let tail: Promise<unknown> = Promise.resolve();
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return (sql: string, params: Record<string, unknown> = {}) => {
        const run = tail.then(() => target.query(sql, params));
        tail = run.catch(() => undefined);
        return run;
      };
    },
  });
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

export interface Timing {
  http: { p50: number; p95: number };
  direct: { p50: number; p95: number };
  /** median of the per-run differences */
  overhead: number;
  /** median CPU time of this process (chDB's threads included) per direct run: less load-dependent than wall time */
  directCpu: number;
  /** the third function's (today's statements without roll-ups), when given */
  before?: { p50: number; p95: number; cpu: number };
  statements?: number;
  load?: number;
}

/**
 * Times the HTTP request and the same statements run directly, interleaved run by run,
 * so both see the same machine load (the machine is shared) and the difference of
 * each pair is the pipeline's own cost.
 */
export async function timePaired(http: () => Promise<unknown>, direct: () => Promise<unknown>, before?: () => Promise<unknown>): Promise<Timing> {
  await http(); // warm
  await direct();
  await before?.();
  const h: number[] = [];
  const d: number[] = [];
  const diff: number[] = [];
  const cpu: number[] = [];
  const b: number[] = [];
  const bCpu: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    if (before) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      await before();
      b.push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      bCpu.push((used.user + used.system) / 1000);
    }
    let started = performance.now();
    await http();
    h.push(performance.now() - started);
    started = performance.now();
    const cpuBefore = process.cpuUsage();
    await direct();
    d.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    diff.push(h.at(-1)! - d.at(-1)!);
  }
  const at = (ms: number[], p: number) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return round1(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
  };
  return {
    http: { p50: at(h, 50), p95: at(h, 95) },
    direct: { p50: at(d, 50), p95: at(d, 95) },
    overhead: at(diff, 50),
    directCpu: at(cpu, 50),
    ...(before ? { before: { p50: at(b, 50), p95: at(b, 95), cpu: at(bCpu, 50) } } : {}),
  };
}

export async function api<T>(url: string, token: string | undefined, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as T;
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

export async function registerOwner(url: string, dataDir: string): Promise<string> {
  const email = `bench.query.${Date.now()}@mail.sightline-bench.net`;
  await api(`${url}/api/v1/auth/send-otp`, undefined, { email });
  const mailDir = path.join(dataDir, 'mail');
  const files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml')).sort();
  const code = /\b(\d{6})\b/.exec(await readFile(path.join(mailDir, files.at(-1)!), 'utf8'))![1];
  return (await api<{ token: string }>(`${url}/api/v1/auth/verify-otp`, undefined, { email, code, accept_terms: true, key_name: 'bench' })).token;
}

async function readKept(file: string, events: number): Promise<KeptDataSet | undefined> {
  const kept = await readFile(file, 'utf8')
    .then((text) => JSON.parse(text) as KeptDataSet)
    .catch(() => undefined);
  if (!kept) return undefined;
  if (kept.events !== events || kept.seed !== SEED)
    throw new Error(`${file} holds ${kept.events} events (seed ${kept.seed}); empty it or set QUERY_BENCH_EVENTS/SEED to match`);
  return kept;
}

/**
 * POST /api/v1/query in one process (`npm start`'s composition: gateway → gRPC →
 * query service → chDB) over a generated data set of QUERY_BENCH_EVENTS events,
 * 5 sites, 90 days: p50/p95 per shape over the HTTP path, beside the same compiled
 * statements run directly on the events store. The difference is what gateway,
 * key and site checks, gRPC and shaping cost.
 */
/** One size's timings per shape (for the side-by-side table). */
type SizeTimings = Map<string, Timing>;

const load1 = () => os.loadavg()[0]!;

async function benchQuerySize(eventCount: number, dataDir: string | undefined, timings: SizeTimings): Promise<Record<string, string | number>> {
  const dir = dataDir ? { path: dataDir, remove: async () => {} } : await makeTempDir('sightline-bench-query-');
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const keptFile = path.join(dir.path, 'query-bench.json');
  const kept = dataDir ? await readKept(keptFile, eventCount) : undefined;
  const figures: Record<string, string | number> = {};
  // QUERY_CACHE_MAX_BYTES=0: this bench measures the query engine; repeated reports would otherwise be answered from the gateway's answer cache (the share-crowd bench measures that)
  const config = loadConfig({
    ...process.env,
    ...NO_BUDGETS,
    SIGHTLINE_DATA_DIR: dir.path,
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_DEADLINE_MS: '120000',
    QUERY_CACHE_MAX_BYTES: '0',
  });
  const sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
  try {
    const url = sightline.url!;
    const store = sightline.events!;
    let token: string;
    let siteIds: number[];
    if (kept) {
      ({ token, siteIds } = kept);
      Object.assign(figures, kept.figures);
      figures['data set reused from QUERY_BENCH_DATA_DIR, generated at'] = new Date(kept.generatedAtMs).toISOString();
    } else {
      token = await registerOwner(url, dir.path);
      siteIds = [];
      for (let i = 0; i < 5; i += 1) {
        siteIds.push(
          (await api<{ site_id: number }>(`${url}/api/v1/sites`, token, { url: `https://bench-${i}.sightline-bench.net`, timezone: TIMEZONE, week_start: 1 }))
            .site_id,
        );
      }
      await api(`${url}/api/v1/sites/${siteIds[0]}/goals`, token, { event_name: 'Signup' });
      const started = performance.now();
      const generatedAtMs = Date.now();
      const generated = await generateQueryData(store, { siteIds, events: eventCount, days: 90, endMs: generatedAtMs, seed: SEED });
      figures['generate + load + merge (s)'] = round1((performance.now() - started) / 1000);
      figures['events / sessions stored (all 5 sites)'] = `${generated.events.toLocaleString('en')} / ${generated.sessions.toLocaleString('en')}`;
      const [own] = await store.query<{ events: number }>('SELECT count() AS events FROM events WHERE site_id = {site:UInt64}', { site: siteIds[0] });
      figures['events of the queried site (90 days)'] = Number(own!.events).toLocaleString('en');
      if (dataDir)
        await writeFile(
          keptFile,
          JSON.stringify({ events: eventCount, seed: SEED, token, siteIds, generatedAtMs, figures: { ...figures } } satisfies KeptDataSet),
        );
    }
    const siteId = siteIds[0]!;
    // what background merges reach on a live store (a kept set may predate the roll-ups: migration 0009 backfilled them)
    for (const table of ROLLUP_TABLES) await store.command(`OPTIMIZE TABLE ${table} FINAL`);
    figures['runs per figure (after one warm-up)'] = RUNS;

    const loads: number[] = [];
    for (const [label, body] of SHAPES) {
      if (ONLY && !label.includes(ONLY)) continue;
      const site = { siteId, timezone: TIMEZONE, weekStart: 1, goals: [{ displayName: 'Signup', eventName: 'Signup' }], nowMs: Date.now() };
      const statements: Array<[string, Record<string, unknown>]> = [];
      await runQuery({ events: recording(store, statements), geo: intlGeoLabels }, parseQueryRequest(body), site);
      // today's statements without the roll-ups, timed beside when they differ
      const withoutRollups: Array<[string, Record<string, unknown>]> = [];
      await runQuery({ events: recording(store, withoutRollups), geo: intlGeoLabels, rollups: false }, parseQueryRequest(body), site);
      const differs = JSON.stringify(withoutRollups) !== JSON.stringify(statements);
      const runAll = (list: Array<[string, Record<string, unknown>]>) => async () => {
        for (const [sql, params] of list) await store.query(sql, params);
      };
      const timing = await timePaired(
        () => api(`${url}/api/v1/query`, token, { site_id: siteId, ...body }),
        runAll(statements),
        differs ? runAll(withoutRollups) : undefined,
      );
      timings.set(label, { ...timing, statements: statements.length, load: load1() });
      figures[`${label}: HTTP | ${statements.length} statements direct (p50/p95 ms) | overhead p50 | direct CPU p50`] =
        `${timing.http.p50}/${timing.http.p95} | ${timing.direct.p50}/${timing.direct.p95} | ${timing.overhead} | ${timing.directCpu}`;
      if (timing.before)
        figures[`${label}: without roll-ups, ${withoutRollups.length} statements direct (p50/p95 ms) | CPU p50`] =
          `${timing.before.p50}/${timing.before.p95} | ${timing.before.cpu}`;
      console.log(`  [${eventCount}] ${label}: ${JSON.stringify({ ...timing, load: load1() })}`);
      // the pipeline in this process, its independent statements at once beside one at a time, interleaved run by run
      // (skipped when several sizes run or QUERY_BENCH_PIPELINE=0: it doubles the time of a 100M run)
      if (SIZES.length > 1 || process.env.QUERY_BENCH_PIPELINE === '0') {
        loads.push(load1());
        continue;
      }
      const request = parseQueryRequest(body);
      const overlap = await timePaired(
        () => runQuery({ events: store, geo: intlGeoLabels }, request, site),
        () => runQuery({ events: oneAtATime(store), geo: intlGeoLabels }, request, site),
      );
      figures[`${label}: pipeline, statements at once | one at a time (p50 ms) | ratio`] =
        `${overlap.http.p50} | ${overlap.direct.p50} | ${(overlap.http.p50 / overlap.direct.p50).toFixed(2)}`;
      loads.push(load1());
    }
    if (!ONLY || 'dashboard first load'.includes(ONLY)) {
      // a panel past QUERY_MAX_MEMORY_BYTES (event:page with time on page at 100M) answers 422: reported, not fatal
      try {
        // every panel's query at once through HTTP, as the page sends them; the direct side runs each query's recorded statements, queries at once
        const site = { siteId, timezone: TIMEZONE, weekStart: 1, goals: [{ displayName: 'Signup', eventName: 'Signup' }], nowMs: Date.now() };
        const record = async (rollups: boolean) => {
          const recorded: Array<Array<[string, Record<string, unknown>]>> = [];
          for (const body of DASHBOARD_FIRST_LOAD) {
            const statements: Array<[string, Record<string, unknown>]> = [];
            await runQuery({ events: recording(store, statements), geo: intlGeoLabels, rollups }, parseQueryRequest(body), site);
            recorded.push(statements);
          }
          return recorded;
        };
        const [recorded, withoutRollups] = [await record(true), await record(false)];
        const allAtOnce = (list: typeof recorded) => () =>
          Promise.all(
            list.map(async (statements) => {
              for (const [sql, params] of statements) await store.query(sql, params);
            }),
          );
        const timing = await timePaired(
          () => Promise.all(DASHBOARD_FIRST_LOAD.map((body) => api(`${url}/api/v1/query`, token, { site_id: siteId, ...body }))),
          allAtOnce(recorded),
          allAtOnce(withoutRollups),
        );
        const count = recorded.reduce((n, r) => n + r.length, 0);
        timings.set('dashboard first load (8 queries at once)', { ...timing, statements: count, load: load1() });
        figures[`dashboard first load, ${DASHBOARD_FIRST_LOAD.length} queries at once: HTTP | ${count} statements direct (p50/p95 ms) | direct CPU p50`] =
          `${timing.http.p50}/${timing.http.p95} | ${timing.direct.p50}/${timing.direct.p95} | ${timing.directCpu}`;
        figures['dashboard first load without roll-ups: statements direct (p50/p95 ms) | CPU p50'] =
          `${timing.before!.p50}/${timing.before!.p95} | ${timing.before!.cpu}`;
        console.log(`  [${eventCount}] dashboard first load: ${JSON.stringify({ ...timing, load: load1() })}`);
        loads.push(load1());
      } catch (error) {
        figures['dashboard first load'] = `failed: ${String(error).slice(0, 200)}`;
        console.log(`  [${eventCount}] dashboard first load failed: ${String(error).slice(0, 200)}`);
      }
    }
    const [bytes] = await store.query<{ events: number; sessions: number }>(
      "SELECT sumIf(bytes_on_disk, table = 'events') AS events, sumIf(bytes_on_disk, table = 'sessions') AS sessions FROM system.parts WHERE active AND database = currentDatabase()",
    );
    const [rows] = await store.query<{ events: number; sessions: number }>(
      'SELECT (SELECT count() FROM events) AS events, (SELECT count() FROM sessions) AS sessions',
    );
    figures['stored bytes per event | per session row (system.parts, active)'] =
      `${(Number(bytes!.events) / Number(rows!.events)).toFixed(1)} | ${(Number(bytes!.sessions) / Math.max(1, Number(rows!.sessions))).toFixed(1)}`;
    for (const table of ROLLUP_TABLES) {
      const [part] = await store.query<{ rows: number; bytes: number }>(
        'SELECT sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = currentDatabase() AND table = {table:String}',
        { table },
      );
      figures[`${table}: rows | bytes | bytes per row | bytes per event`] =
        `${Number(part!.rows)} | ${Number(part!.bytes)} | ${(Number(part!.bytes) / Math.max(1, Number(part!.rows))).toFixed(0)} | ${(Number(part!.bytes) / Number(rows!.events)).toFixed(2)}`;
    }
    loads.sort((a, b) => a - b);
    figures['1-min load average during the shapes (min / median / max; 2 cores)'] =
      `${loads[0]!.toFixed(1)} / ${loads[Math.floor(loads.length / 2)]!.toFixed(1)} / ${loads.at(-1)!.toFixed(1)}`;
  } finally {
    await sightline.stop();
    await dir.remove();
  }
  return figures;
}

/**
 * POST /api/v1/query at each of QUERY_BENCH_SIZES (default QUERY_BENCH_EVENTS), one
 * size after the other in one run, then a side-by-side table: per shape and size,
 * HTTP p50 / direct p50 / direct CPU p50 (ms) and the 1-min load when it was taken.
 */
export async function benchQuery(): Promise<Record<string, string | number>> {
  const figures: Record<string, string | number> = {};
  const bySize = new Map<number, SizeTimings>();
  for (const size of SIZES) {
    const timings: SizeTimings = new Map();
    bySize.set(size, timings);
    const dataDir = DATA_DIR && SIZES.length > 1 ? path.join(DATA_DIR, `events-${size}`) : DATA_DIR;
    const own = await benchQuerySize(size, dataDir, timings);
    for (const [label, value] of Object.entries(own)) figures[SIZES.length > 1 ? `[${(size / 1e6).toLocaleString('en')}M] ${label}` : label] = value;
  }
  if (SIZES.length > 1) {
    const labels = [...new Set([...bySize.values()].flatMap((t) => [...t.keys()]))];
    const head = SIZES.map((n) => `${(n / 1e6).toLocaleString('en')}M`).join(' | ');
    figures[`table: shape — HTTP p50 / direct p50 / direct CPU p50 ms [without roll-ups: direct p50 / CPU p50] (load) at ${head}`] = '';
    for (const label of labels) {
      figures[`  ${label}`] = SIZES.map((n) => {
        const t = bySize.get(n)!.get(label);
        return t
          ? `${t.http.p50} / ${t.direct.p50} / ${t.directCpu}${t.before ? ` [${t.before.p50} / ${t.before.cpu}]` : ''} (${(t.load ?? 0).toFixed(1)})`
          : '–';
      }).join(' | ');
    }
  }
  return figures;
}
