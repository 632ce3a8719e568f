// `npm run load [scenario…]`: runs the k6 scenario definitions locally (autocannon),
// against BASE_URL (with API_KEY, SITE_ID, TRACKING_KEY, SITE_HOST) or, when unset,
// a single-process Sightline started here on embedded stores. Prints throughput,
// latency percentiles and each threshold's verdict. Figures, not a test.
// `--mode=microservices`: the same scenarios against a single process and then against
// every service as its own process (PostgreSQL, NATS, chDB), with each process's
// resident memory idle and after each scenario (`--mode=microservices-only`: without the
// single process).
// Before the dashboard mix the runner waits until ingest has stored the burst's events
// (queries on a steady store); `--concurrent-ingest` skips the wait and measures the
// queries while ingest drains the burst on the same machine.
// LOAD_EVENTS=1000000: the local site first gets that many generated events (the query
// bench's generator, 30 days), so the mix reads a site of a real size. LOAD_BASELINE_ROOT
// (another checkout with node_modules): the same data served by that tree and by this one,
// alternated LOAD_ROUNDS times (default 1), for an A/B in one run. Every local run prints
// the server's CPU per request (all its threads, and its main thread alone, from /proc); LOAD_CPU_PROF_DIR writes the
// server's CPU profiles there (node --cpu-prof).
import os from 'node:os';
import { makeTempDir, startLauncherProcess } from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from '../../bench/auth.js';
import { controlPlane, dashboardQueries, trackerBurst, type LoadContext, type LoadScenario } from '../definitions/index.js';
import { driveScenario } from './drive-scenario.js';
import { measureServiceTimes } from './service-times.js';
import { processCpuSeconds } from '../../bench/machine-cpu.js';
import { seedEvents } from './seeded-site.js';
import { waitForIngestToSettle } from './wait-for-ingest.js';
import { microservicesTarget, residentMemory, type MeasuredProcess } from './microservices-target.js';

const ALL: LoadScenario[] = [trackerBurst, dashboardQueries, controlPlane];
const args = process.argv.slice(2);
const microservicesOnly = args.includes('--mode=microservices-only');
const microservices = microservicesOnly || args.includes('--mode=microservices');
const concurrentIngest = args.includes('--concurrent-ingest');
const wanted = args.filter((a) => !a.startsWith('--'));
const scenarios = wanted.length ? ALL.filter((s) => wanted.includes(s.name)) : ALL;
const duration = process.env.LOAD_DURATION_S ? Number(process.env.LOAD_DURATION_S) : undefined;
const seededEvents = Number(process.env.LOAD_EVENTS ?? 0);
const baselineRoot = process.env.LOAD_BASELINE_ROOT;
const rounds = Number(process.env.LOAD_ROUNDS ?? 1);
const cpuProfDir = process.env.LOAD_CPU_PROF_DIR;

interface Target {
  label: string;
  baseUrl: string;
  ctx: LoadContext;
  processes: MeasuredProcess[];
  stop(): Promise<void>;
}

interface LocalSite {
  dir: Awaited<ReturnType<typeof makeTempDir>>;
  env: Record<string, string>;
  ctx: LoadContext;
}

/** `npm start`'s composition as a child process (`env` names its data dir), from this tree or another checkout. */
function startLocal(env: Record<string, string>, root?: string) {
  const nodeArgs = ['--max-semi-space-size=64', ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [])];
  return startLauncherProcess({ env: { ...env, MALLOC_ARENA_MAX: '2' }, nodeArgs, ...(root ? { root } : {}) });
}

/** A data dir with an account, its key and one site; LOAD_EVENTS generated events in it. */
async function localSite(): Promise<LocalSite> {
  const dir = await makeTempDir('sightline-load-');
  // QUERY_CACHE_MAX_BYTES=0: dashboard-queries measures the engine, not the gateway's answer cache (bench share-crowd does)
  const env = { SIGHTLINE_DATA_DIR: dir.path, ...NO_BUDGETS, QUERY_CACHE_MAX_BYTES: process.env.QUERY_CACHE_MAX_BYTES ?? '0' };
  const server = await startLocal(env);
  try {
    const { token } = await registerViaOutbox(server, dir.path);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const siteHost = 'load.sightline-bench.net';
    const site = (await (
      await fetch(`${server.url}/api/v1/sites`, { method: 'POST', headers, body: JSON.stringify({ url: `https://${siteHost}`, timezone: 'UTC' }) })
    ).json()) as { site_id: number; script_url: string };
    const trackingKey = site.script_url.split('/').pop()!.replace(/\.js$/, '');
    // the first query opens the embedded store and applies its migrations
    const opened = await fetch(`${server.url}/api/v1/query`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ site_id: site.site_id, metrics: ['visitors'], date_range: '7d' }),
    });
    if (opened.status !== 200) throw new Error(`the first query answered ${opened.status}`);
    return { dir, env, ctx: { apiKey: token, siteId: site.site_id, trackingKey, siteHost } };
  } finally {
    await server.stop('SIGTERM');
  }
}

async function localTarget(site: LocalSite, root?: string): Promise<Target> {
  const server = await startLocal(site.env, root);
  return {
    label: `single process, embedded stores${root ? `, tree ${root}` : ''}`,
    baseUrl: server.url,
    ctx: site.ctx,
    processes: [{ name: 'all', pid: server.child.pid! }],
    stop: async () => {
      await server.stop('SIGTERM');
    },
  };
}

async function memoryLine(processes: MeasuredProcess[]): Promise<string> {
  const parts = await Promise.all(
    processes.map(async (p) => {
      const m = await residentMemory(p.pid);
      return m ? `${p.name} ${m.rssMiB}/${m.peakMiB}` : `${p.name} ?`;
    }),
  );
  return `RSS/peak MiB: ${parts.join(', ')}`;
}

async function runAll(target: Target): Promise<void> {
  console.log(
    `\ntarget ${target.baseUrl} (${target.label}); load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (target.processes.length) console.log(`  idle ${await memoryLine(target.processes)}`);
  console.log(
    'scenario'.padEnd(20),
    'req'.padStart(8),
    'req/s'.padStart(8),
    'p50'.padStart(6),
    'p95'.padStart(6),
    'p99'.padStart(6),
    'errors'.padStart(8),
    ' thresholds',
  );
  let burstSent = false;
  for (const scenario of scenarios) {
    if (scenario === dashboardQueries && burstSent && !concurrentIngest) {
      const settled = await waitForIngestToSettle(target.baseUrl, target.ctx);
      console.log(`  (ingest stored the burst ${settled.seconds} s after it ended: ${settled.pageviews} pageviews in the realtime window)`);
    }
    burstSent ||= scenario === trackerBurst;
    const cpuBefore = cpuSeconds(target.processes);
    const mainBefore = cpuSeconds(target.processes, true);
    const r = await driveScenario(target.baseUrl, scenario, target.ctx, duration);
    const cpuAfter = cpuSeconds(target.processes);
    const mainAfter = cpuSeconds(target.processes, true);
    const t = scenario.thresholds;
    console.log(
      r.scenario.padEnd(20),
      String(r.requests).padStart(8),
      String(r.rps).padStart(8),
      String(r.p50).padStart(6),
      String(r.p95).padStart(6),
      String(r.p99).padStart(6),
      `${(r.errorRate * 100).toFixed(2)}%`.padStart(8),
      ` ${r.passed ? 'PASS' : 'FAIL'} (p95 < ${t.p95Ms} ms, errors < ${t.maxErrorRate * 100}%)`,
    );
    if (target.processes.length) {
      const ms = (seconds: number) => round1((seconds * 1000) / r.requests);
      const perRequest = target.processes.map((p, i) => `${p.name} ${ms(cpuAfter[i]! - cpuBefore[i]!)} (main thread ${ms(mainAfter[i]! - mainBefore[i]!)})`);
      const total = cpuAfter.reduce((sum, c, i) => sum + c - cpuBefore[i]!, 0);
      console.log(
        `  server CPU per request (ms): ${perRequest.join(', ')}; total ${round1((total * 1000) / r.requests)} (capacity on 2 cores ≈ ${Math.round((2 * r.requests) / total)} req/s)`,
      );
      console.log(
        `  after ${scenario.name}: ${await memoryLine(target.processes)}; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
    }
    if (scenario === dashboardQueries) {
      const times = await measureServiceTimes(target.baseUrl, scenario, target.ctx);
      const sum = times.reduce((total, t) => total + t.p50, 0);
      console.log(
        `  each request alone (p50 ms, no queue): ${times.map((t) => `${t.name.replace(/^query /, '')} ${t.p50}`).join(', ')}; mean ${Math.round((sum / times.length) * 10) / 10}`,
      );
    }
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function cpuSeconds(processes: MeasuredProcess[], mainThreadOnly = false): number[] {
  return processes.map((p) => {
    try {
      return processCpuSeconds(p.pid, mainThreadOnly);
    } catch {
      return NaN; // not Linux, or the process is gone
    }
  });
}

async function withTarget(start: () => Promise<Target>): Promise<void> {
  const target = await start();
  try {
    await runAll(target);
  } finally {
    await target.stop();
  }
}

const external = process.env.BASE_URL;
if (external) {
  const ctx = {
    apiKey: process.env.API_KEY ?? '',
    siteId: Number(process.env.SITE_ID),
    trackingKey: process.env.TRACKING_KEY ?? '',
    siteHost: process.env.SITE_HOST ?? 'localhost',
  };
  await withTarget(async () => ({ label: 'external', baseUrl: external, ctx, processes: [], stop: async () => {} }));
} else if (!microservicesOnly) {
  const site = await localSite();
  try {
    if (seededEvents > 0) {
      const seeded = await seedEvents(site.dir.path, site.ctx.siteId, seededEvents);
      console.log(
        `site ${site.ctx.siteId}: ${seeded.events.toLocaleString('en')} events / ${seeded.sessions.toLocaleString('en')} sessions generated over 30 days in ${seeded.seconds} s`,
      );
    }
    for (let round = 0; round < rounds; round += 1) {
      if (baselineRoot) await withTarget(() => localTarget(site, baselineRoot));
      await withTarget(() => localTarget(site));
    }
  } finally {
    await site.dir.remove();
  }
}
if (!external) {
  for (let round = 0; microservices && round < rounds; round += 1) {
    for (const root of baselineRoot ? [baselineRoot, undefined] : [undefined]) {
      await withTarget(async () => ({
        label: `microservices: one process per service, PostgreSQL + NATS + chDB${root ? `, tree ${root}` : ''}`,
        ...(await microservicesTarget(root)),
      }));
    }
  }
}
