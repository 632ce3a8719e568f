import os from 'node:os';
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import type { EventStore } from '@sightline/event-store';
import { createLogger, grpcServerHandled } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS } from './auth.js';
import { api, registerOwner } from './query.js';
import { generateQueryData } from './query-data.js';

const VIEWERS = Number(process.env.WIDGET_CROWD_VIEWERS ?? 1000);
const SECONDS = Number(process.env.WIDGET_CROWD_SECONDS ?? 180);
const BASELINE_VIEWERS = Number(process.env.WIDGET_CROWD_BASELINE_VIEWERS ?? 100);
const BASELINE_SECONDS = Number(process.env.WIDGET_CROWD_BASELINE_SECONDS ?? 60);
const EVENTS = Number(process.env.WIDGET_CROWD_EVENTS ?? 200_000);

/** The widgets' refresh cadence (the seam contract's §6): live ones every 30 s, the others every 5 minutes. */
const WIDGETS = [
  { type: 'live-users', everyMs: 30_000 },
  { type: 'globe', everyMs: 30_000 },
  { type: 'countries', everyMs: 300_000 },
  { type: 'map', everyMs: 300_000 },
] as const;

interface CrowdFigures {
  requests: number;
  failures: Record<string, number>;
  seconds: number;
  storeQueries: number;
  ms: number[];
}

/** Query/Query calls the query service answered: what reached the events store. */
async function storeQueries(): Promise<number> {
  const { values } = await grpcServerHandled.get();
  return values.filter((v) => String(v.labels.method) === 'Query/Query').reduce((sum, v) => sum + v.value, 0);
}

/**
 * `viewers` pages each showing one widget (the four types in turn), each from its own
 * address (X-Forwarded-For through a trusted proxy), polling on the widget's schedule; they
 * arrive spread over their first interval and stay for `seconds`.
 */
async function crowd(url: string, key: string, viewers: number, seconds: number): Promise<CrowdFigures> {
  const figures: CrowdFigures = { requests: 0, failures: {}, seconds: 0, storeQueries: 0, ms: [] };
  const before = await storeQueries();
  const started = performance.now();
  const endAt = started + seconds * 1000;
  const viewer = async (index: number) => {
    const { type, everyMs } = WIDGETS[index % WIDGETS.length]!;
    const ip = `198.18.${Math.floor(index / 250)}.${(index % 250) + 1}`;
    await sleep((index / viewers) * Math.min(everyMs, seconds * 1000));
    while (performance.now() < endAt) {
      const at = performance.now();
      try {
        const response = await fetch(`${url}/api/v1/widgets/${type}?key=${key}`, {
          headers: { 'x-forwarded-for': ip, origin: 'https://blog.sightline-bench.net' },
        });
        await response.arrayBuffer();
        if (response.status !== 200) figures.failures[response.status] = (figures.failures[response.status] ?? 0) + 1;
      } catch (error) {
        figures.failures[(error as Error).message] = (figures.failures[(error as Error).message] ?? 0) + 1;
      }
      figures.requests += 1;
      figures.ms.push(performance.now() - at);
      // the run ends at endAt: a viewer's next poll past it is not waited for
      await sleep(Math.max(0, Math.min(at + everyMs, endAt) - performance.now()));
    }
  };
  await Promise.all(Array.from({ length: viewers }, (_, i) => viewer(i)));
  figures.seconds = (performance.now() - started) / 1000;
  figures.storeQueries = (await storeQueries()) - before;
  return figures;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round2 = (n: number) => Math.round(n * 100) / 100;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;

/**
 * A crowd on the four widgets of one site (issue 32's budget: ≤ 2 events-store queries per
 * widget per minute for 1,000 viewers), counted on the query service's gRPC server metric,
 * beside a baseline in the same run: the same pages with the widget answers not reused
 * (WIDGET_CACHE_TTL_MS=0, QUERY_CACHE_MAX_BYTES=0: only identical requests in flight
 * together are joined), each run on a freshly started process.
 */
export async function benchWidgetCrowd(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-widget-crowd-');
  const figures: Record<string, string | number> = {};
  const base = {
    ...process.env,
    ...NO_BUDGETS,
    SIGHTLINE_DATA_DIR: dir.path,
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_DEADLINE_MS: '120000',
    TRUSTED_PROXIES: '127.0.0.1,::1',
  };
  const runs: Array<[string, Record<string, string>, number, number]> = [
    ['cached (defaults)', {}, VIEWERS, SECONDS],
    [
      'baseline, answers not reused',
      { WIDGET_CACHE_TTL_MS: '0', QUERY_CACHE_MAX_BYTES: '0', WIDGET_KEY_RATE_LIMIT_PER_MINUTE: '0' },
      BASELINE_VIEWERS,
      BASELINE_SECONDS,
    ],
  ];
  let key = '';
  const perWidgetMinute: Record<string, number> = {};
  const perRequest: Record<string, number> = {};
  try {
    for (const [label, env, viewers, seconds] of runs) {
      const sightline = await startSightline({ config: loadConfig({ ...base, ...env }), log: createLogger({ level: 'silent' }), target: 'all' });
      try {
        const url = sightline.url!;
        if (!key) key = await widgetSite(url, dir.path, sightline.events!, figures);
        // a fresh process loads the embedded engine cold: one answer of each widget first, then let them expire
        for (const { type } of WIDGETS) await api(`${url}/api/v1/widgets/${type}?key=${key}`, undefined);
        await sleep(61_000);
        const loadBefore = os.loadavg()[0]!;
        const run = await crowd(url, key, viewers, seconds);
        const minutes = run.seconds / 60;
        perWidgetMinute[label] = run.storeQueries / WIDGETS.length / minutes;
        perRequest[label] = run.storeQueries / Math.max(run.requests, 1);
        const failures =
          Object.entries(run.failures)
            .map(([status, n]) => `${n}×${status}`)
            .join(', ') || 'none';
        figures[`${label}: viewers | seconds | requests | failures`] = `${viewers} | ${Math.round(run.seconds)} | ${run.requests} | ${failures}`;
        figures[`${label}: store queries (total | per widget per minute | per request)`] =
          `${run.storeQueries} | ${round2(perWidgetMinute[label]!)} | ${round2(perRequest[label]!)}`;
        figures[`${label}: answer time (p50/p95/max ms)`] =
          `${Math.round(percentile(run.ms, 50))} / ${Math.round(percentile(run.ms, 95))} / ${Math.round(Math.max(0, ...run.ms))}`;
        figures[`${label}: load average before / after (2 cores)`] = `${loadBefore.toFixed(1)} / ${os.loadavg()[0]!.toFixed(1)}`;
      } finally {
        await sightline.stop();
      }
    }
    const [cached, baseline] = runs.map(([label]) => label);
    figures['ratio baseline / cached: store queries per request'] = round2(perRequest[baseline!]! / Math.max(perRequest[cached!]!, 1e-9));
  } finally {
    await dir.remove();
  }
  figures.knobs = `WIDGET_CROWD_VIEWERS=${VIEWERS} WIDGET_CROWD_SECONDS=${SECONDS} WIDGET_CROWD_BASELINE_VIEWERS=${BASELINE_VIEWERS} WIDGET_CROWD_BASELINE_SECONDS=${BASELINE_SECONDS} WIDGET_CROWD_EVENTS=${EVENTS}`;
  return figures;
}

/** The owner, a site with generated events over 90 days up to now: its widget key. */
async function widgetSite(url: string, dataDir: string, store: EventStore, figures: Record<string, string | number>): Promise<string> {
  const token = await registerOwner(url, dataDir);
  const site = await api<{ site_id: number }>(`${url}/api/v1/sites`, token, { url: 'https://widgets.sightline-bench.net', timezone: 'Europe/Berlin' });
  const generated = await generateQueryData(store, { siteIds: [site.site_id], events: EVENTS, days: 90, endMs: Date.now(), seed: 11 });
  figures['events / sessions of the site (90 days, generated)'] = `${generated.events.toLocaleString('en')} / ${generated.sessions.toLocaleString('en')}`;
  const snippet = await fetch(`${url}/api/v1/sites/${site.site_id}/snippet?type=globe`, { headers: { authorization: `Bearer ${token}` } });
  return ((await snippet.json()) as { key: string }).key;
}
