import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
 * FOOTPRINT_NODE_ARGS: node's flags for the server (default: those of the tree's `npm
 * start`). The server gets the variables its tree's start script sets (MALLOC_ARENA_MAX
 * and the like) and inherits this bench's environment, which wins: MALLOC_* and the like
 * can be tried on the command line.
 *
 * Memory is read as RSS (what the goal of issue 29 names) and split, from smaps_rollup,
 * into anonymous vs file-backed pages and PSS / private: libchdb.so's and node's code are
 * file pages, counted in RSS though clean, shared and reclaimable by the kernel.
 *
 * FOOTPRINT_LOG_LEVEL: the server's LOG_LEVEL (default warn); its output is printed if the
 * workload fails, and its last FOOTPRINT_OUTPUT_CHARS characters (3,000) when an import is
 * refused with 503 and sent again.
 *
 * FOOTPRINT_HEAP_SNAPSHOT: a directory; the idle server writes a heap snapshot there after
 * the last read (`--heapsnapshot-signal`), for finding what the JS heap retains.
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
    const row = {
      timestamp: new Date(at).toISOString(),
      name: k % 7 === 6 ? 'Signup' : 'pageview',
      visitor_id: `v${visitor}`,
      hostname: HOST,
      pathname: PAGES[k % PAGES.length],
      browser: 'Firefox',
      os: 'Linux',
      device: 'Desktop',
      country: 'DE',
    };
    text += `${JSON.stringify(row)}\n`;
    if (text.length >= 65_536) {
      yield Buffer.from(text);
      text = '';
    }
  }
  if (text) yield Buffer.from(text);
}

async function importHistory(server: LauncherProcess, token: string, siteId: number): Promise<void> {
  // a tree whose gateway pings the channel carrying the upload answers 503 when the upload
  // outlives the gRPC connection age (grpc/grpc-node#3068: the ping after the GOAWAY cuts
  // it); a refused upload imports nothing (issue 29), so it is sent again
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await importHistoryOnce(server, token, siteId);
    } catch (error) {
      if (attempt >= 3 || !String((error as Error).message).includes('answered 503')) throw error;
      process.stderr.write(
        `import attempt ${attempt}: ${(error as Error).message}\nthe server printed:\n${server.output().slice(-(Number(process.env.FOOTPRINT_OUTPUT_CHARS) || 3_000))}\n`,
      );
      await sleep(10_000);
    }
  }
}

async function importHistoryOnce(server: LauncherProcess, token: string, siteId: number): Promise<void> {
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
          const body = JSON.stringify({
            k: trackingKey,
            n: name,
            u: `https://${HOST}${PAGES[n % PAGES.length]}`,
            d: HOST,
            r: n % 3 === 0 ? 'https://www.google.com/' : undefined,
          });
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

/** The JS heap's share of the RSS (MiB), from the process's own /metrics (prom-client's default metrics). */
async function jsHeapMiB(metricsPort: number): Promise<{ heap: string; spaces: string; external: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (name: string) => Math.round(Number(new RegExp(`^sightline_${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  const space = (kind: string, name: string) =>
    Math.round(Number(new RegExp(`^sightline_nodejs_heap_space_size_${kind}_bytes\\{space="${name}"\\} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  const spaces = [
    'new',
    'old',
    'code',
    'large_object',
    'map',
    'trusted',
    'shared',
    'read_only',
    'new_large_object',
    'code_large_object',
    'shared_large_object',
    'trusted_large_object',
  ]
    .filter((name) => text.includes(`space="${name}"`))
    .map((name) => `${name} ${space('used', name)}/${space('total', name)}`)
    .join(', ');
  return {
    heap: `${value('nodejs_heap_size_used_bytes')} / ${value('nodejs_heap_size_total_bytes')}`,
    spaces,
    external: value('nodejs_external_memory_bytes'),
  };
}

/** The process's memory by kind (MiB, /proc smaps_rollup). */
interface ResidentSplit {
  /** anonymous pages: heaps, malloc arenas, the engine's allocator, WebAssembly memory */
  anonymous: number;
  /** file pages mapped (libchdb.so's and node's code, mapped files): clean, shared with the page cache, reclaimable */
  file: number;
  /** proportional set size: each shared page divided among the processes mapping it */
  pss: number;
  /** pages no other process maps (private clean + private dirty) */
  private: number;
}

function residentSplit(pid: number): ResidentSplit {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  const mib = (value: number) => Math.round(value / 1024);
  return {
    anonymous: mib(kb('Anonymous')),
    file: mib(kb('Rss') - kb('Anonymous') - kb('Pss_Shmem')),
    pss: mib(kb('Pss')),
    private: mib(kb('Private_Clean') + kb('Private_Dirty')),
  };
}

const describeSplit = (split: ResidentSplit) => `anonymous ${split.anonymous}, file-backed ${split.file}; PSS ${split.pss}, private ${split.private}`;

/**
 * How `npm start` of the tree at `root` runs the server: the `NAME=value` words its start
 * script sets before `exec node` (MALLOC_ARENA_MAX and the like) and node's flags, so a
 * baseline checkout runs as its own `npm start` does.
 */
function startScript(root: string): { env: Record<string, string>; nodeArgs: string[] } {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
  const words = start.split('&&').at(-1)!.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let word = words.shift();
  for (let assignment; word && (assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(word)); word = words.shift()) env[assignment[1]!] = assignment[2]!;
  while (word === 'exec' || word === 'node') word = words.shift();
  const nodeArgs: string[] = [];
  for (; word && word !== '--import'; word = words.shift()) nodeArgs.push(word);
  return { env, nodeArgs };
}

/** FOOTPRINT_HEAP_SNAPSHOT=<dir>: the idle server's /proc smaps, then a heap snapshot (SIGUSR2) written there after the last RSS read. */
async function heapSnapshot(pid: number, dir: string): Promise<string> {
  writeFileSync(path.join(dir, `smaps.${pid}.txt`), readFileSync(`/proc/${pid}/smaps`));
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 300_000; waited += 1_000) {
    await sleep(1_000);
    const written = readdirSync(dir).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    // the file is complete once its size stops changing
    if (written) {
      const size = statSync(path.join(dir, written)).size;
      await sleep(2_000);
      if (statSync(path.join(dir, written)).size === size) return path.join(dir, written);
    }
  }
  return 'not written within 5 minutes';
}

/** Waits (up to 3 minutes) until GET /readyz answers 200: every service the gateway calls is serving. */
async function untilReady(server: LauncherProcess): Promise<void> {
  for (let waited = 0; waited < 180_000; waited += 500) {
    const status = await fetch(`${server.url}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(500);
  }
  throw new Error('the server was not ready (GET /readyz) within 3 minutes');
}

/** The whole workload against the tree at `root`; RSS in MiB. */
interface WorkloadFigures {
  before: number;
  peak: number;
  idle: number[];
  /** at the last idle read */
  resident: ResidentSplit;
  heap: string;
  /** the JS heap's spaces (used/held), external memory, anonymous vs file-backed RSS at the last read */
  breakdown: string;
  snapshot?: string;
  /** seconds of the import, the collection and the reports */
  phases: number[];
  failedReports: number;
}

async function runWorkload(root: string | undefined): Promise<WorkloadFigures> {
  const dir = await makeTempDir('sightline-footprint-work-');
  const metricsPort = await freeLoopbackPort();
  const snapshotDir = process.env.FOOTPRINT_HEAP_SNAPSHOT ? path.resolve(process.env.FOOTPRINT_HEAP_SNAPSHOT) : undefined;
  const tree = startScript(root ?? path.resolve(import.meta.dirname, '../..'));
  // this bench's own environment wins over the tree's start script (trying MALLOC_* and the like)
  const treeEnv = Object.fromEntries(Object.entries(tree.env).filter(([name]) => process.env[name] === undefined));
  const server = await startLauncherProcess({
    ...(root ? { root } : {}),
    // as `npm start`; FOOTPRINT_NODE_ARGS tries others (e.g. a smaller young generation)
    nodeArgs: [
      ...(process.env.FOOTPRINT_NODE_ARGS?.split(' ').filter(Boolean) ?? tree.nodeArgs),
      ...(snapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []),
    ],
    // the variables that tree's `npm start` sets (glibc's malloc arenas and the like); set in this bench's environment they win
    env: {
      ...treeEnv,
      LOG_LEVEL: process.env.FOOTPRINT_LOG_LEVEL ?? 'warn',
      SIGHTLINE_DATA_DIR: dir.path,
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      TRUSTED_PROXIES: '127.0.0.1,::1',
      IMPORT_MAX_BYTES: String(1024 ** 3),
      ...NO_BUDGETS,
    },
    timeoutMs: 120_000,
  });
  const pid = server.child.pid!;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 250);
  try {
    // "running" is printed before every service's stores are migrated: under load an
    // import sent at once met an ingest not yet serving (503)
    await untilReady(server);
    await sleep(SETTLE_MS);
    const before = rssMiB(pid);
    const { token } = await registerViaOutbox(server, dir.path);
    const site = await api<{ site_id: number; script_url: string }>(server, token, 'POST', '/api/v1/sites', { url: `https://${HOST}` });
    for (const goal of [{ event_name: 'Signup' }, { page_path: '/blog/*' }, { page_path: '/thanks' }])
      await api(server, token, 'POST', `/api/v1/sites/${site.site_id}/goals`, goal);
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
    const resident = residentSplit(pid);
    const js = await jsHeapMiB(metricsPort);
    // a snapshot collects all garbage first: the RSS after it says what a full GC would give back
    const snapshot = snapshotDir
      ? `${await heapSnapshot(pid, snapshotDir)}; then RSS ${rssMiB(pid)}, ${describeSplit(residentSplit(pid))}, JS heap ${(await jsHeapMiB(metricsPort)).heap}`
      : undefined;
    return {
      before,
      peak,
      idle,
      resident,
      heap: js.heap,
      breakdown: `JS heap spaces used/held: ${js.spaces}; external ${js.external}; RSS ${describeSplit(resident)}`,
      snapshot,
      phases,
      failedReports,
    };
  } catch (error) {
    // the server's own account of what failed (its logs are warnings and errors only)
    throw new Error(`${(error as Error).message}\nthe server printed (last 6,000 characters):\n${server.output().slice(-6_000)}`, { cause: error });
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
    figures[`${label}: PSS / private / anonymous at +${IDLE_READS_S.at(-1)} s (MiB)`] =
      `${run.resident.pss} / ${run.resident.private} / ${run.resident.anonymous}`;
    figures[`${label}: JS heap used / held at +${IDLE_READS_S.at(-1)} s (MiB)`] = run.heap;
    figures[`${label}: where the RSS is at +${IDLE_READS_S.at(-1)} s (MiB)`] = run.breakdown;
    if (run.snapshot) figures[`${label}: heap snapshot`] = run.snapshot;
  }
  if (runs.length === 2) {
    const [base, mine] = [runs[0]![1], runs[1]![1]];
    figures['idle RSS after 60 s, this tree / baseline'] = (mine.idle.at(-1)! / base.idle.at(-1)!).toFixed(2);
    figures['idle private memory after 60 s, this tree / baseline'] = (mine.resident.private / base.resident.private).toFixed(2);
    figures['peak RSS, this tree / baseline'] = (mine.peak / base.peak).toFixed(2);
  }
  return figures;
}
