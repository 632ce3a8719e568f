import os from 'node:os';
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import type { EventStore } from '@sightline/event-store';
import { createLogger, grpcServerHandled } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS } from './auth.js';
import { api, registerOwner } from './query.js';
import { generateQueryData } from './query-data.js';

const VIEWERS = Number(process.env.SHARE_CROWD_VIEWERS ?? 200);
const SECONDS = Number(process.env.SHARE_CROWD_SECONDS ?? 60);
const POLL_SECONDS = Number(process.env.SHARE_CROWD_POLL_SECONDS ?? 30);
const EVENTS = Number(process.env.SHARE_CROWD_EVENTS ?? 200_000);
const VIEWS = (process.env.SHARE_CROWD_VIEWS ?? '30d,realtime').split(',').map((v) => v.trim()) as View[];
const TIMEZONE = 'Europe/Berlin';

type View = '30d' | 'realtime';

const ATTRIBUTE_METRICS = ['visitors', 'bounce_rate', 'visit_duration'];

/**
 * What the dashboard (apps/dashboard: state/requests.ts, catalogue.ts) asks for when a
 * share page opens on `view`: the top stats, "visitors now", the main graph, and each
 * panel's first tab (channels, top pages, the country map, browsers, goals).
 */
function pageQueries(view: View): Array<Record<string, unknown>> {
  const range = view === 'realtime' ? 'realtime' : '30d';
  const breakdown = (dimension: string, metrics: string[], limit = 9) => ({ metrics, date_range: range, dimensions: [dimension], filters: [], limit });
  return [
    { metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'], date_range: range, filters: [] },
    { metrics: ['visitors'], date_range: 'realtime', filters: [] },
    { metrics: ['visitors'], date_range: range, filters: [], dimensions: [view === 'realtime' ? 'time:minute' : 'time:day'] },
    breakdown('visit:channel', ATTRIBUTE_METRICS),
    breakdown('event:page', ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth']),
    breakdown('visit:country', ATTRIBUTE_METRICS, 300),
    breakdown('visit:browser', ATTRIBUTE_METRICS),
    breakdown('event:goal', ['visitors', 'events', 'conversion_rate']),
  ];
}

/**
 * What it asks again every 30 s (state/store.ts REFRESH_MS): "visitors now" always; every
 * panel too while the period is realtime.
 */
function pollQueries(view: View): Array<Record<string, unknown>> {
  return view === 'realtime' ? pageQueries(view) : [{ metrics: ['visitors'], date_range: 'realtime', filters: [] }];
}

interface CrowdFigures {
  requests: number;
  failures: Record<string, number>;
  seconds: number;
  storeQueries: number;
  /** a viewer's page load: every request at once, first to last answer */
  loadMs: number[];
  /** each refresh after it */
  pollMs: number[];
}

/** Calls the query service answered (Query/Query, Query/ListProps): what reached the events store. */
async function storeQueries(): Promise<number> {
  const { values } = await grpcServerHandled.get();
  return values.filter((v) => /^Query\/(Query|ListProps)$/.test(String(v.labels.method))).reduce((sum, v) => sum + v.value, 0);
}

/**
 * `VIEWERS` people on one public dashboard: each opens the page (every request at once,
 * like the panels), then refreshes what the dashboard refreshes every POLL_SECONDS; they
 * arrive spread over the first interval and stay; the run lasts SECONDS.
 */
async function crowd(url: string, hash: string, view: View): Promise<CrowdFigures> {
  const figures: CrowdFigures = { requests: 0, failures: {}, seconds: 0, storeQueries: 0, loadMs: [], pollMs: [] };
  const request = async (path: string, body?: unknown) => {
    const response = await fetch(
      `${url}${path}`,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    await response.arrayBuffer();
    figures.requests += 1;
    if (response.status !== 200) figures.failures[response.status] = (figures.failures[response.status] ?? 0) + 1;
  };
  const round = async (first: boolean) => {
    const started = performance.now();
    await Promise.all([
      ...(first ? [request(`/api/v1/share/${hash}`)] : []),
      ...(first ? pageQueries(view) : pollQueries(view)).map((body) => request(`/api/v1/share/${hash}/query`, body)),
    ]).catch((error: unknown) => {
      figures.failures[String((error as Error).message)] = (figures.failures[String((error as Error).message)] ?? 0) + 1;
    });
    if (first) figures.loadMs.push(performance.now() - started);
    else figures.pollMs.push(performance.now() - started);
  };
  const queriesBefore = await storeQueries();
  const started = performance.now();
  const endAt = started + SECONDS * 1000;
  const viewer = async (index: number) => {
    await sleep((index / VIEWERS) * POLL_SECONDS * 1000);
    let first = true;
    while (performance.now() < endAt) {
      const roundStart = performance.now();
      await round(first);
      first = false;
      await sleep(Math.max(0, roundStart + POLL_SECONDS * 1000 - performance.now()));
    }
  };
  await Promise.all(Array.from({ length: VIEWERS }, (_, i) => viewer(i)));
  figures.seconds = (performance.now() - started) / 1000;
  figures.storeQueries = (await storeQueries()) - queriesBefore;
  return figures;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * A crowd on one public dashboard (issue 31, "Holds a crowd"), per dashboard view: the
 * same load with the gateway's query answer cache on (the defaults) and off
 * (QUERY_CACHE_MAX_BYTES=0), one after the other over the same data, each on a freshly
 * started process.
 */
export async function benchShareCrowd(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-share-crowd-');
  const figures: Record<string, string | number> = {};
  const base = {
    ...process.env,
    ...NO_BUDGETS,
    SIGHTLINE_DATA_DIR: dir.path,
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_DEADLINE_MS: '120000',
    SHARE_RATE_LIMIT_PER_MINUTE: '0',
  };
  let hash = '';
  const caches: Array<[string, Record<string, string>]> = [
    ['cache on', {}],
    ['cache off', { QUERY_CACHE_MAX_BYTES: '0' }],
  ];
  try {
    for (const view of VIEWS) {
      const results: Record<string, CrowdFigures> = {};
      for (const [cache, env] of caches) {
        const label = `${view}, ${cache}`;
        const sightline = await startSightline({ config: loadConfig({ ...base, ...env }), log: createLogger({ level: 'silent' }), target: 'all' });
        try {
          const url = sightline.url!;
          if (!hash) hash = await sharedSite(url, dir.path, sightline.events!, figures);
          // a fresh process loads the embedded engine and reads each shape's data cold: one page load first, not the crowd's cost
          for (const body of pageQueries(view)) await api(`${url}/api/v1/share/${hash}/query`, undefined, body);
          // …and its answers (kept 10 s with the cache on) are gone before the crowd arrives, in both runs alike
          await sleep(11_000);
          const loadBefore = os.loadavg()[0]!;
          const run = await crowd(url, hash, view);
          results[cache] = run;
          const failures =
            Object.entries(run.failures)
              .map(([status, n]) => `${n}×${status}`)
              .join(', ') || 'none';
          figures[`${label}: viewers | loads + refreshes | req/s | failures`] =
            `${VIEWERS} | ${run.loadMs.length} + ${run.pollMs.length} | ${round1(run.requests / run.seconds)} | ${failures}`;
          figures[`${label}: queries reaching the store (per s | total)`] = `${round1(run.storeQueries / run.seconds)} | ${run.storeQueries}`;
          figures[`${label}: page data time, first to last answer (p50/p95/max ms)`] = spread(run.loadMs);
          figures[`${label}: refresh time (p50/p95/max ms)`] = spread(run.pollMs);
          figures[`${label}: load average before / after (2 cores)`] = `${loadBefore.toFixed(1)} / ${os.loadavg()[0]!.toFixed(1)}`;
        } finally {
          await sightline.stop();
        }
      }
      const on = results['cache on']!;
      const off = results['cache off']!;
      figures[`${view}: ratio off / on: store queries per s | p95 page data time | p95 refresh time`] =
        `${round1(off.storeQueries / off.seconds / Math.max(on.storeQueries / on.seconds, 1e-9))} | ${round1(percentile(off.loadMs, 95) / Math.max(percentile(on.loadMs, 95), 1))} | ${round1(percentile(off.pollMs, 95) / Math.max(percentile(on.pollMs, 95), 1))}`;
    }
  } finally {
    await dir.remove();
  }
  figures.knobs = `SHARE_CROWD_VIEWERS=${VIEWERS} SHARE_CROWD_SECONDS=${SECONDS} SHARE_CROWD_POLL_SECONDS=${POLL_SECONDS} SHARE_CROWD_EVENTS=${EVENTS} SHARE_CROWD_VIEWS=${VIEWS.join(',')}`;
  return figures;
}

/** The owner, the site with a goal and generated events, its public dashboard on: the share hash. */
async function sharedSite(url: string, dataDir: string, store: EventStore, figures: Record<string, string | number>): Promise<string> {
  const token = await registerOwner(url, dataDir);
  const site = await api<{ site_id: number; hash: string }>(`${url}/api/v1/sites`, token, { url: 'https://crowd.sightline-bench.net', timezone: TIMEZONE });
  await api(`${url}/api/v1/sites/${site.site_id}/goals`, token, { event_name: 'Signup' });
  const put = await fetch(`${url}/api/v1/sites/${site.site_id}/settings/public-dashboard`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ enabled: true }),
  });
  if (!put.ok) throw new Error(`public dashboard: ${put.status} ${await put.text()}`);
  const generated = await generateQueryData(store, { siteIds: [site.site_id], events: EVENTS, days: 90, endMs: Date.now(), seed: 7 });
  figures['events / sessions of the shared site (90 days, generated)'] =
    `${generated.events.toLocaleString('en')} / ${generated.sessions.toLocaleString('en')}`;
  return site.hash;
}

function spread(ms: number[]): string {
  if (ms.length === 0) return '—';
  return `${Math.round(percentile(ms, 50))} / ${Math.round(percentile(ms, 95))} / ${Math.round(Math.max(...ms))}`;
}
