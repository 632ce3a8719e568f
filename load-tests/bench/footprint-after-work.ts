import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { freeLoopbackPort, makeTempDir, startLauncherProcess, type LauncherProcess } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from './auth.js';

/**
 * Memory of `npm start` before, during and after a realistic workload (issue 29): an
 * import of FOOTPRINT_IMPORT_ROWS (400 000) rows, FOOTPRINT_EVENTS (100 000) collected
 * events, FOOTPRINT_QUERIES (1 000) reports; then the process idles and its RSS is read
 * at +10, +30 and +60 s. The server is a child process with `npm start`'s flags and
 * embedded stores (PGlite, chDB, in-process bus, file outbox).
 *
 * FOOTPRINT_NODE_ARGS: node's flags for the server (default `npm start`'s); the server
 * inherits the environment, so MALLOC_ARENA_MAX (default 2, as `npm start`) and the like
 * can be tried on the command line.
 *
 * FOOTPRINT_BASELINE_ROOT: another checkout (with node_modules), e.g. `git archive main`,
 * runs the same workload first: its figures print beside this tree's, with the ratio.
 */
const IMPORT_ROWS = Number(process.env.FOOTPRINT_IMPORT_ROWS ?? 400_000);
const EVENTS = Number(process.env.FOOTPRINT_EVENTS ?? 100_000);
const QUERIES = Number(process.env.FOOTPRINT_QUERIES ?? 1_000);
const IDLE_READS_S = [10, 30, 60];
const SETTLE_MS = 3_000;
const HOST = 'shop.sightline-bench.net';
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const PAGES = ['/', '/pricing', '/docs', '/blog/a', '/blog/b', '/signup', '/thanks'];

function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function api<T>(server: LauncherProcess, token: string, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** NDJSON of `rows` events over the last 28 days: visitors of 20 events, two visits each. */
async function* importLines(rows: number, endMs: number): AsyncGenerator<Buffer> {
  let text = '';
  const start = endMs - 28 * 86_400_000;
  for (let i = 0; i < rows; i += 1) {
    const visitor = Math.floor(i / 20);
    const k = i % 20;
    const at = start + (visitor % 27) * 86_400_000 + (visitor % 1440) * 60_000 + k * 90_000 + (k >= 10 ? 7_200_000 : 0);
    const row = { timestamp: new Date(at).toISOString(), name: k % 7 === 6 ? 'Signup' : 'pageview', visitor_id: `v${visitor}`, hostname: HOST, pathname: PAGES[k % PAGES.length], browser: 'Firefox', os: 'Linux', device: 'Desktop', country: 'DE' };
    text += `${JSON.stringify(row)}\n`;
    if (text.length >= 65_536) {
      yield Buffer.from(text);
      text = '';
    }
  }
  if (text) yield Buffer.from(text);
}

async function importHistory(server: LauncherProcess, token: string, siteId: number): Promise<void> {
  const response = await fetch(`${server.url}/api/v1/sites/${siteId}/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body: streamOf(importLines(IMPORT_ROWS, Date.now())),
    duplex: 'half',
  } as RequestInit);
  const job = (await response.json()) as { import_id: number; status: string };
  if (response.status !== 202) throw new Error(`import answered ${response.status}: ${JSON.stringify(job)}`);
  for (;;) {
    const state = await api<{ status: string; failure: string | null }>(server, token, 'GET', `/api/v1/sites/${siteId}/imports/${job.import_id}`);
    if (state.status === 'completed') return;
    if (state.status === 'failed') throw new Error(`import failed: ${state.failure}`);
    await sleep(250);
  }
}

function streamOf(chunks: AsyncGenerator<Buffer>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}

/** EVENTS pageviews and custom events through POST /api/event, each from its own address (TRUSTED_PROXIES). */
async function collect(server: LauncherProcess, trackingKey: string): Promise<number> {
  let n = 0;
  const result = await autocannon({
    url: `${server.url}/api/event`,
    method: 'POST',
    connections: 32,
    amount: EVENTS,
    requests: [
      {
        setupRequest: (request) => {
          n += 1;
          const visitor = n % 20_000;
          const name = n % 9 === 0 ? 'Signup' : 'pageview';
          const body = JSON.stringify({ k: trackingKey, n: name, u: `https://${HOST}${PAGES[n % PAGES.length]}`, d: HOST, r: n % 3 === 0 ? 'https://www.google.com/' : undefined });
          const ip = `23.${(visitor >> 8) & 255}.${visitor & 255}.${1 + (n % 3)}`;
          return { ...request, body, headers: { 'content-type': 'text/plain', 'user-agent': USER_AGENT, 'x-forwarded-for': ip } };
        },
      },
    ],
  });
  return result['2xx'];
}

const REPORTS: Array<Record<string, unknown>> = [
  { metrics: ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit'], date_range: '30d' },
  { metrics: ['visitors', 'pageviews', 'bounce_rate'], date_range: '30d', dimensions: ['time:day'] },
  { metrics: ['visitors', 'pageviews'], date_range: '30d', dimensions: ['event:page'] },
  { metrics: ['visitors', 'bounce_rate'], date_range: '30d', dimensions: ['visit:source'] },
  { metrics: ['visitors'], date_range: '30d', dimensions: ['visit:country'] },
  { metrics: ['visitors', 'events', 'conversion_rate'], date_range: '30d', dimensions: ['event:goal'] },
  { metrics: ['visitors', 'visits'], date_range: '30d', compare: 'previous_period' },
  { metrics: ['visitors', 'pageviews'], date_range: '7d', dimensions: ['time:hour'] },
];

/** QUERIES reports, four at a time, cycling through the shapes; answers how many were not answered 200. */
async function ask(server: LauncherProcess, token: string, siteId: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    for (let i = next++; i < QUERIES; i = next++) {
      // a busy machine may time a report out (503): counted, not fatal
      await api(server, token, 'POST', '/api/v1/query', { site_id: siteId, ...REPORTS[i % REPORTS.length] }).catch(() => (failed += 1));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return failed;
}

/** The JS heap's share of the RSS (MiB, used / held), from the process's own /metrics. */
async function jsHeapMiB(metricsPort: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (name: string) => Math.round(Number(new RegExp(`^sightline_${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  return `${value('nodejs_heap_size_used_bytes')} / ${value('nodejs_heap_size_total_bytes')}`;
}

/** The whole workload against the tree at `root`; RSS in MiB. */
interface WorkloadFigures {
  before: number;
  peak: number;
  idle: number[];
  heap: string;
  /** seconds of the import, the collection and the reports */
  phases: number[];
  failedReports: number;
}

async function runWorkload(root: string | undefined): Promise<WorkloadFigures> {
  const dir = await makeTempDir('sightline-footprint-work-');
  const metricsPort = await freeLoopbackPort();
  const server = await startLauncherProcess({
    ...(root ? { root } : {}),
    // as `npm start`; FOOTPRINT_NODE_ARGS tries others (e.g. a smaller young generation)
    nodeArgs: (process.env.FOOTPRINT_NODE_ARGS ?? '--max-semi-space-size=64').split(' ').filter(Boolean),
    // glibc's malloc arenas as `npm start` caps them (a baseline checkout gets the same)
    env: { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2', SIGHTLINE_DATA_DIR: dir.path, HOST: '127.0.0.1', METRICS_PORT: String(metricsPort), TRUSTED_PROXIES: '127.0.0.1,::1', IMPORT_MAX_BYTES: String(1024 ** 3), ...NO_BUDGETS },
    timeoutMs: 120_000,
  });
  const pid = server.child.pid!;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 250);
  try {
    await sleep(SETTLE_MS);
    const before = rssMiB(pid);
    const { token } = await registerViaOutbox(server, dir.path);
    const site = await api<{ site_id: number; script_url: string }>(server, token, 'POST', '/api/v1/sites', { url: `https://${HOST}` });
    for (const goal of [{ event_name: 'Signup' }, { page_path: '/blog/*' }, { page_path: '/thanks' }]) await api(server, token, 'POST', `/api/v1/sites/${site.site_id}/goals`, goal);
    const phases: number[] = [];
    let mark = performance.now();
    const lap = () => {
      phases.push(Math.round((performance.now() - mark) / 1000));
      mark = performance.now();
    };
    await importHistory(server, token, site.site_id);
    lap();
    const accepted = await collect(server, /([A-Za-z0-9]+)\.js$/.exec(site.script_url)![1]!);
    if (accepted < EVENTS) throw new Error(`only ${accepted} of ${EVENTS} events accepted`);
    lap();
    const failedReports = await ask(server, token, site.site_id);
    lap();
    const idle: number[] = [];
    let waited = 0;
    for (const at of IDLE_READS_S) {
      await sleep((at - waited) * 1000);
      waited = at;
      idle.push(rssMiB(pid));
    }
    return { before, peak, idle, heap: await jsHeapMiB(metricsPort), phases, failedReports };
  } finally {
    clearInterval(sampler);
    await server.stop('SIGTERM');
    await dir.remove();
  }
}

export async function benchFootprintAfterWork(): Promise<Record<string, string | number>> {
  const baselineRoot = process.env.FOOTPRINT_BASELINE_ROOT ? path.resolve(process.env.FOOTPRINT_BASELINE_ROOT) : undefined;
  const figures: Record<string, string | number> = {
    workload: `${IMPORT_ROWS} imported rows, ${EVENTS} collected events, ${QUERIES} reports`,
  };
  const runs: Array<[string, Awaited<ReturnType<typeof runWorkload>>]> = [];
  if (baselineRoot) runs.push(['baseline', await runWorkload(baselineRoot)]);
  runs.push(['this tree', await runWorkload(undefined)]);
  for (const [label, run] of runs) {
    figures[`${label}: seconds importing / collecting / reporting`] = run.phases.join(' / ');
    if (run.failedReports > 0) figures[`${label}: reports not answered 200 (a busy machine)`] = run.failedReports;
    figures[`${label}: RSS before / peak (MiB)`] = `${run.before} / ${run.peak}`;
    figures[`${label}: RSS idle +${IDLE_READS_S.join(' / +')} s after the last report (MiB)`] = run.idle.join(' / ');
    figures[`${label}: JS heap used / held at +${IDLE_READS_S.at(-1)} s (MiB)`] = run.heap;
  }
  if (runs.length === 2) {
    const [base, mine] = [runs[0]![1], runs[1]![1]];
    figures['idle RSS after 60 s, this tree / baseline'] = (mine.idle.at(-1)! / base.idle.at(-1)!).toFixed(2);
    figures['peak RSS, this tree / baseline'] = (mine.peak / base.peak).toFixed(2);
  }
  return figures;
}
