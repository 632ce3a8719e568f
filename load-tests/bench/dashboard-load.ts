import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { dashboardBuildDir } from '../../apps/launcher/src/test-support/dashboard/dashboard-build.js';
import { NO_BUDGETS } from './auth.js';
import { generateQueryData } from './query-data.js';

const EVENTS = Number(process.env.DASHBOARD_BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.DASHBOARD_BENCH_RUNS ?? 5);
const SEED = Number(process.env.DASHBOARD_BENCH_SEED ?? 42);
/** 1: keep the gateway's answer cache on (warm loads then read cached answers); default off, so every load computes */
const CACHE = process.env.DASHBOARD_BENCH_CACHE === '1';
const CHROMIUM = '/usr/bin/chromium';
const PANELS = ['top-stats', 'graph', 'sources', 'pages', 'locations', 'devices', 'goals'];
// the page side of waitForFunction (this tree compiles without the DOM library)
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type InPage = any;

const round1 = (ms: number) => Math.round(ms * 10) / 10;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function api<T>(url: string, token: string | undefined, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function registerOwner(url: string, dataDir: string): Promise<string> {
  const email = `bench.dashboard.${Date.now()}@mail.sightline-bench.net`;
  await api(`${url}/api/v1/auth/send-otp`, undefined, { email });
  const mailDir = path.join(dataDir, 'mail');
  const files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml')).sort();
  const code = /\b(\d{6})\b/.exec(await readFile(path.join(mailDir, files.at(-1)!), 'utf8'))![1];
  return (await api<{ token: string }>(`${url}/api/v1/auth/verify-otp`, undefined, { email, code, accept_terms: true, key_name: 'bench' })).token;
}

/** When, in ms since navigation start, the page had its scripts, sent its first data call and had its last answer. */
interface Phases {
  scriptsLoaded: number;
  firstDataSent: number;
  lastDataAnswered: number;
}

/** A data call the page made, as the share routes saw it (POST query bodies, GET props URLs). */
interface DataCall {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

/**
 * Navigates to the share page and answers the time from navigation start until every
 * panel is on the page and none is loading (`data-loading` gone), measured in the page
 * (performance.now() counts from the navigation's start), plus the data calls it made.
 */
async function loadOnce(page: Page, url: string): Promise<{ ms: number; calls: DataCall[]; phases: Phases }> {
  const calls: DataCall[] = [];
  const record = (request: import('playwright-core').Request) => {
    const target = new URL(request.url());
    if (!target.pathname.startsWith('/api/')) return;
    const body = request.postData();
    calls.push({
      method: request.method(),
      path: `${target.pathname}${target.search}`,
      ...(body ? { body: JSON.parse(body) as Record<string, unknown> } : {}),
    });
  };
  page.on('request', record);
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    (want: string[]) => {
      const doc = (globalThis as InPage).document;
      const ok =
        want.every((name) => doc.querySelector(`[data-panel="${name}"]`)) &&
        !doc.querySelector('[data-panel][data-loading="true"], [data-panel] [data-loading="true"]');
      return ok ? ((globalThis as InPage).performance.now() as number) : false;
    },
    PANELS,
    { timeout: 120_000, polling: 'raf' },
  );
  const ms = (await handle.jsonValue()) as number;
  page.off('request', record);
  // where the time went, from the page's own resource timings (ms since navigation start)
  const phases = await page.evaluate(() => {
    const entries = ((globalThis as InPage).performance.getEntriesByType('resource') as InPage[]).map((e) => ({
      name: String(e.name),
      start: Number(e.startTime),
      end: Number(e.responseEnd),
    }));
    const data = entries.filter((e) => new URL(e.name).pathname.startsWith('/api/'));
    const scripts = entries.filter((e) => /\/assets\/.*\.js$/.test(new URL(e.name).pathname));
    return {
      scriptsLoaded: Math.max(0, ...scripts.map((e) => e.end)),
      firstDataSent: Math.min(...data.map((e) => e.start)),
      lastDataAnswered: Math.max(0, ...data.map((e) => e.end)),
    };
  });
  return { ms, calls, phases };
}

/** The same data calls straight to the API with the owner's key: one after another (sum), and all at once (wall). */
async function replay(
  url: string,
  token: string,
  siteId: number,
  hash: string,
  calls: DataCall[],
): Promise<{ sum: number; concurrent: number; count: number }> {
  const direct = calls
    .filter((c) => c.path.startsWith(`/api/v1/share/${hash}/`))
    .map((c) => {
      const rest = c.path.slice(`/api/v1/share/${hash}`.length);
      if (rest.startsWith('/query')) return () => api(`${url}/api/v1/query`, token, { site_id: siteId, ...c.body });
      if (rest.startsWith('/props')) {
        const query = new URLSearchParams(rest.split('?')[1] ?? '');
        query.set('site_id', String(siteId));
        return () => api(`${url}/api/v1/props?${query.toString()}`, token);
      }
      return () => api(`${url}/api/v1${rest}`, token);
    });
  let started = performance.now();
  for (const call of direct) await call();
  const sum = performance.now() - started;
  started = performance.now();
  await Promise.all(direct.map((call) => call()));
  return { sum, concurrent: performance.now() - started, count: direct.length };
}

/**
 * The share page of a site holding DASHBOARD_BENCH_EVENTS generated events (the query
 * bench's generator, 30 days ending now) in Debian's Chromium: time from navigation to
 * every panel shown, cold (a new browser context: nothing cached) and warm (the same
 * context again), beside the same data calls sent straight to POST /api/v1/query in the
 * same run, one after another (their sum) and all at once.
 */
export async function benchDashboardLoad(): Promise<Record<string, string | number>> {
  if (!existsSync(CHROMIUM)) return { skipped: `${CHROMIUM} is not installed (apt-get install chromium)` };
  const figures: Record<string, string | number> = {};
  const dir = await makeTempDir('sightline-bench-dashboard-');
  const config = loadConfig({
    ...process.env,
    ...NO_BUDGETS,
    SIGHTLINE_DATA_DIR: dir.path,
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_DEADLINE_MS: '120000',
    DASHBOARD_DIR: await dashboardBuildDir(),
    SHARE_RATE_LIMIT_PER_MINUTE: '0',
    ...(CACHE ? {} : { QUERY_CACHE_MAX_BYTES: '0' }),
  });
  const sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
  let browser: Browser | undefined;
  try {
    const url = sightline.url!;
    const token = await registerOwner(url, dir.path);
    const site = await api<{ site_id: number; hash: string }>(`${url}/api/v1/sites`, token, {
      url: 'https://dashboard-bench.sightline-bench.net',
      timezone: 'UTC',
    });
    await api(`${url}/api/v1/sites/${site.site_id}/goals`, token, { event_name: 'Signup' });
    await fetch(`${url}/api/v1/sites/${site.site_id}/settings/public-dashboard`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ enabled: true }),
    });
    let started = performance.now();
    const generated = await generateQueryData(sightline.events!, { siteIds: [site.site_id], events: EVENTS, days: 30, endMs: Date.now(), seed: SEED });
    figures['generate + load + merge (s)'] = round1((performance.now() - started) / 1000);
    figures['events / sessions of the site (30 days)'] = `${generated.events.toLocaleString('en')} / ${generated.sessions.toLocaleString('en')}`;
    figures['gateway answer cache'] = CACHE ? 'on (QUERY_CACHE_* defaults)' : 'off (QUERY_CACHE_MAX_BYTES=0: every load computes)';
    figures['runs (cold and warm each)'] = RUNS;

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const shareUrl = `${url}/share/${site.hash}?period=30d`;
    // one throw-away load: Chromium's own first-start costs are not the page's
    const warmup = await browser.newContext();
    await loadOnce(await warmup.newPage(), shareUrl);
    await warmup.close();

    const cold: number[] = [];
    const warm: number[] = [];
    const sums: number[] = [];
    const concurrent: number[] = [];
    const coldPhases: Phases[] = [];
    const warmPhases: Phases[] = [];
    let callCount = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const first = await loadOnce(page, shareUrl);
      cold.push(first.ms);
      coldPhases.push(first.phases);
      const again = await loadOnce(page, shareUrl);
      warm.push(again.ms);
      warmPhases.push(again.phases);
      await context.close();
      const direct = await replay(url, token, site.site_id, site.hash, first.calls);
      sums.push(direct.sum);
      concurrent.push(direct.concurrent);
      callCount = direct.count;
    }
    const p = (values: number[]) => `${round1(median(values))} (${round1(Math.min(...values))}–${round1(Math.max(...values))})`;
    figures['data calls per page load'] = callCount;
    figures['navigation → every panel shown, cold (ms, median (min–max))'] = p(cold);
    figures['navigation → every panel shown, warm (ms)'] = p(warm);
    const phase = (list: Phases[]) =>
      `${round1(median(list.map((x) => x.scriptsLoaded)))} / ${round1(median(list.map((x) => x.firstDataSent)))} / ${round1(median(list.map((x) => x.lastDataAnswered)))}`;
    figures['cold: last script loaded / first data call sent / last data answer (ms, medians)'] = phase(coldPhases);
    figures['warm: last script loaded / first data call sent / last data answer (ms, medians)'] = phase(warmPhases);
    figures['the same calls straight to the API, one after another: sum (ms)'] = p(sums);
    figures['the same calls straight to the API, all at once: wall (ms)'] = p(concurrent);
    figures['ratio cold page / API sum; warm page / API sum'] = `${(median(cold) / median(sums)).toFixed(2)}; ${(median(warm) / median(sums)).toFixed(2)}`;
    figures['ratio warm page / API all at once'] = (median(warm) / median(concurrent)).toFixed(2);
    figures['1-min load average at the end (2 cores)'] = os.loadavg()[0]!.toFixed(1);
  } finally {
    await browser?.close();
    await sightline.stop();
    await dir.remove();
  }
  return figures;
}
