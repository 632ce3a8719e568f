import os from 'node:os';
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import { createLogger, grpcServerHandled } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS } from './auth.js';
import { api, registerOwner } from './query.js';
import { generateQueryData } from './query-data.js';

const VIEWERS = Number(process.env.SHARE_CROWD_VIEWERS ?? 200);
const SECONDS = Number(process.env.SHARE_CROWD_SECONDS ?? 60);
const POLL_SECONDS = Number(process.env.SHARE_CROWD_POLL_SECONDS ?? 30);
const EVENTS = Number(process.env.SHARE_CROWD_EVENTS ?? 200_000);
const TIMEZONE = 'Europe/Berlin';

/**
 * What one share page asks for at each load and each refresh: every panel of the
 * contract ("top-stats|graph|sources|pages|locations|devices|goals"), "visitors now",
 * and the custom property keys, over the default 30-day view.
 */
const PAGE_QUERIES: Array<Record<string, unknown>> = [
  { metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'], date_range: '30d', compare: 'previous_period' },
  { metrics: ['visitors'], date_range: 'realtime' },
  { metrics: ['visitors'], date_range: '30d', dimensions: ['time:day'], compare: 'previous_period' },
  { metrics: ['visitors', 'bounce_rate'], date_range: '30d', dimensions: ['visit:source'], limit: 10 },
  { metrics: ['visitors', 'pageviews'], date_range: '30d', dimensions: ['event:page'], limit: 10 },
  { metrics: ['visitors'], date_range: '30d', dimensions: ['visit:country'], limit: 10 },
  { metrics: ['visitors'], date_range: '30d', dimensions: ['visit:browser'], limit: 10 },
  { metrics: ['visitors', 'events', 'conversion_rate'], date_range: '30d', dimensions: ['event:goal'] },
];

interface CrowdFigures {
  rounds: number;
  requests: number;
  failures: Record<string, number>;
  seconds: number;
  storeQueries: number;
  roundMs: number[];
}

/** Calls the query service answered (Query/Query, Query/ListProps): what reached the events store. */
async function storeQueries(): Promise<number> {
  const { values } = await grpcServerHandled.get();
  return values.filter((v) => /^Query\/(Query|ListProps)$/.test(String(v.labels.method))).reduce((sum, v) => sum + v.value, 0);
}

/**
 * `VIEWERS` people on one public dashboard: each loads the page's data (every request of
 * a round at once, like the panels), then again every POLL_SECONDS, arriving spread over
 * the first interval; the run lasts SECONDS.
 */
async function crowd(url: string, hash: string): Promise<CrowdFigures> {
  const figures: CrowdFigures = { rounds: 0, requests: 0, failures: {}, seconds: 0, storeQueries: 0, roundMs: [] };
  const request = async (path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await response.arrayBuffer();
    figures.requests += 1;
    if (response.status !== 200) figures.failures[response.status] = (figures.failures[response.status] ?? 0) + 1;
  };
  const round = async (first: boolean) => {
    const started = performance.now();
    await Promise.all([
      ...(first ? [request(`/api/v1/share/${hash}`)] : []),
      ...PAGE_QUERIES.map((body) => request(`/api/v1/share/${hash}/query`, body)),
      request(`/api/v1/share/${hash}/props?date_range=30d`),
    ]).catch((error: unknown) => {
      figures.failures[String((error as Error).message)] = (figures.failures[String((error as Error).message)] ?? 0) + 1;
    });
    figures.roundMs.push(performance.now() - started);
    figures.rounds += 1;
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
 * A crowd on one public dashboard (issue 31, "Holds a crowd"): the same load with the
 * gateway's query answer cache on (the defaults) and off (QUERY_CACHE_MAX_BYTES=0), one
 * after the other over the same data, each on a freshly started process.
 */
export async function benchShareCrowd(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-share-crowd-');
  const figures: Record<string, string | number> = {};
  const base = { ...process.env, ...NO_BUDGETS, SIGHTLINE_DATA_DIR: dir.path, PORT: '0', HOST: '127.0.0.1', GRPC_DEADLINE_MS: '120000', SHARE_RATE_LIMIT_PER_MINUTE: '0' };
  let hash = '';
  const runs: Array<[string, Record<string, string>]> = [
    ['cache on', {}],
    ['cache off', { QUERY_CACHE_MAX_BYTES: '0' }],
  ];
  const results: Record<string, CrowdFigures> = {};
  try {
    for (const [label, env] of runs) {
      const sightline = await startSightline({ config: loadConfig({ ...base, ...env }), log: createLogger({ level: 'silent' }), target: 'all' });
      try {
        const url = sightline.url!;
        if (!hash) {
          const token = await registerOwner(url, dir.path);
          const site = await api<{ site_id: number; hash: string }>(`${url}/api/v1/sites`, token, { url: 'https://crowd.sightline-bench.net', timezone: TIMEZONE });
          await api(`${url}/api/v1/sites/${site.site_id}/goals`, token, { event_name: 'Signup' });
          await fetch(`${url}/api/v1/sites/${site.site_id}/settings/public-dashboard`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ enabled: true }) });
          const generated = await generateQueryData(sightline.events!, { siteIds: [site.site_id], events: EVENTS, days: 90, endMs: Date.now(), seed: 7 });
          figures['events / sessions of the shared site (90 days)'] = `${generated.events.toLocaleString('en')} / ${generated.sessions.toLocaleString('en')}`;
          hash = site.hash;
        }
        // a fresh process loads the embedded engine and reads each shape's data cold: one page round first, not the crowd's cost
        for (const body of PAGE_QUERIES) await api(`${url}/api/v1/share/${hash}/query`, undefined, body);
        const loadBefore = os.loadavg()[0]!;
        const run = await crowd(url, hash);
        results[label] = run;
        const failures = Object.entries(run.failures).map(([status, n]) => `${n}×${status}`).join(', ') || 'none';
        figures[`${label}: viewers | page rounds | requests/s | failures`] = `${VIEWERS} | ${run.rounds} | ${round1(run.requests / run.seconds)} | ${failures}`;
        figures[`${label}: queries reaching the events store (per s | total)`] = `${round1(run.storeQueries / run.seconds)} | ${run.storeQueries}`;
        figures[`${label}: page data time, all panels of a round (p50 / p95 / max ms)`] = `${Math.round(percentile(run.roundMs, 50))} / ${Math.round(percentile(run.roundMs, 95))} / ${Math.round(Math.max(...run.roundMs))}`;
        figures[`${label}: 1-min load average before / after (2 cores, shared)`] = `${loadBefore.toFixed(1)} / ${os.loadavg()[0]!.toFixed(1)}`;
      } finally {
        await sightline.stop();
      }
    }
    const on = results['cache on']!;
    const off = results['cache off']!;
    figures['ratio off / on: store queries per s | requests/s | p95 page data time'] =
      `${round1(off.storeQueries / off.seconds / Math.max(on.storeQueries / on.seconds, 1e-9))} | ${round1(off.requests / off.seconds / (on.requests / on.seconds))} | ${round1(percentile(off.roundMs, 95) / Math.max(percentile(on.roundMs, 95), 1))}`;
  } finally {
    await dir.remove();
  }
  figures.knobs = `SHARE_CROWD_VIEWERS=${VIEWERS} SHARE_CROWD_SECONDS=${SECONDS} SHARE_CROWD_POLL_SECONDS=${POLL_SECONDS} SHARE_CROWD_EVENTS=${EVENTS}`;
  return figures;
}
