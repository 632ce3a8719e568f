import os from 'node:os';
import { loadConfig } from '@sightline/config';
import type { EventStore } from '@sightline/event-store';
import { startSightline } from '@sightline/launcher';
import { runFunnelReport } from '@sightline/query';
import { parseFunnelQuery, type FunnelStep } from '@sightline/query-contract';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS } from './auth.js';
import { generateQueryData } from './query-data.js';
import { api, registerOwner, timePaired } from './query.js';

const EVENTS = Number(process.env.FUNNEL_BENCH_EVENTS ?? 10_000_000);
const RUNS = Number(process.env.QUERY_BENCH_RUNS ?? 15);
const SEED = Number(process.env.QUERY_BENCH_SEED ?? 42);
const TIMEZONE = 'Europe/Berlin';

/** Four steps over the generator's pages and custom events: a page, a wildcard page, a custom event, a wildcard page. */
const GOALS = [{ page_path: '/' }, { page_path: '/pricing/*' }, { event_name: 'Signup' }, { page_path: '/product/*' }];

const round1 = (ms: number) => Math.round(ms * 10) / 10;

/** The data sets: the query bench's (the "10M events": 5 sites, 90 days, the queried site ≈ 2M events in 30 days), and one 5× denser (10M events of one site in 30 days). */
const DATA_SETS = [
  { key: 'query', label: 'query bench data set', sites: 5, days: 90 },
  { key: 'dense', label: 'dense: one site, 30 days', sites: 1, days: 30 },
] as const;
const ONLY = process.env.FUNNEL_BENCH_DATA;

/**
 * GET /sites/{id}/funnels/{funnel_id}/report of a 4-step funnel over 30 days, in one
 * process (`npm start`'s composition: gateway → GetSite/GetPlan/GetFunnel → gRPC →
 * query service → chDB), with FUNNEL_BENCH_EVENTS events from the query bench's
 * generator, per data set (FUNNEL_BENCH_DATA=query|dense: one of them): p50/p95 over
 * HTTP beside the same statement run directly on the events store, interleaved run by
 * run, their ratio, and the direct statement's CPU time (the figure to trust on a
 * loaded machine).
 */
export async function benchFunnel(): Promise<Record<string, string | number>> {
  const figures: Record<string, string | number> = { 'runs per figure (after one warm-up)': RUNS };
  for (const set of DATA_SETS) {
    if (ONLY && ONLY !== set.key) continue;
    Object.assign(figures, await benchDataSet(set));
  }
  figures['1-min load average at the end (2 cores)'] = os.loadavg()[0]!.toFixed(1);
  return figures;
}

async function benchDataSet(set: (typeof DATA_SETS)[number]): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-funnel-');
  const figures: Record<string, string | number> = {};
  const at = (label: string) => `${set.label}: ${label}`;
  // the answer cache off: this measures the engine, not the cache
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
    const token = await registerOwner(url, dir.path);
    const siteIds: number[] = [];
    for (let i = 0; i < set.sites; i += 1)
      siteIds.push(
        (
          await api<{ site_id: number }>(`${url}/api/v1/sites`, token, {
            url: `https://bench-funnel-${i}.sightline-bench.net`,
            timezone: TIMEZONE,
            week_start: 1,
          })
        ).site_id,
      );
    const siteId = siteIds[0]!;
    const goalIds: number[] = [];
    const steps: FunnelStep[] = [];
    for (const goal of GOALS) {
      const created = await api<{ goal_id: number; display_name: string }>(`${url}/api/v1/sites/${siteId}/goals`, token, goal);
      goalIds.push(created.goal_id);
      steps.push({ goal_id: created.goal_id, name: created.display_name, ...goal });
    }
    const funnel = await api<{ funnel_id: number; name: string }>(`${url}/api/v1/sites/${siteId}/funnels`, token, { name: 'Bench', steps: goalIds });

    const started = performance.now();
    const endMs = Date.now();
    const generated = await generateQueryData(store, { siteIds, events: EVENTS, days: set.days, endMs, seed: SEED });
    figures[at('generate + load + merge (s)')] = round1((performance.now() - started) / 1000);
    const [own] = await store.query<{ events: number }>(
      'SELECT count() AS events FROM events WHERE site_id = {site:UInt64} AND timestamp >= now64(3) - INTERVAL 30 DAY',
      { site: siteId },
    );
    figures[at(`events stored (${set.sites} site(s), ${set.days} days) | of the queried site in the last 30 days`)] =
      `${generated.events.toLocaleString('en')} | ${Number(own!.events).toLocaleString('en')}`;

    const site = { siteId, timezone: TIMEZONE, weekStart: 1, goals: [], nowMs: Date.now() };
    for (const [label, query] of [
      ['30d', 'date_range=30d'],
      ['30d + compare previous_period', 'date_range=30d&compare=previous_period'],
    ] as const) {
      const statements: Array<[string, Record<string, unknown>]> = [];
      const recording = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'query') return (sql: string, params: Record<string, unknown> = {}) => (statements.push([sql, params]), target.query(sql, params));
          return Reflect.get(target, prop, receiver) as unknown;
        },
      }) as EventStore;
      const params = Object.fromEntries(new URLSearchParams(query));
      const answer = await runFunnelReport(recording, { funnel: { funnel_id: funnel.funnel_id, name: funnel.name, steps }, ...parseFunnelQuery(params) }, site);
      figures[at(`${label}: visitors per step`)] = answer.steps.map((s) => s.visitors.toLocaleString('en')).join(' → ');
      const timing = await timePaired(
        () => api(`${url}/api/v1/sites/${siteId}/funnels/${funnel.funnel_id}/report?${query}`, token),
        // the report's statements as the pipeline runs them: side by side
        () => Promise.all(statements.map(([sql, p]) => store.query(sql, p))),
      );
      figures[at(`${label}: HTTP | ${statements.length} statement(s) direct (p50/p95 ms) | ratio p50 | direct CPU p50 (ms)`)] =
        `${timing.http.p50}/${timing.http.p95} | ${timing.direct.p50}/${timing.direct.p95} | ${(timing.http.p50 / timing.direct.p50).toFixed(2)} | ${timing.directCpu}`;
    }
    figures[at('1-min load average (2 cores)')] = os.loadavg()[0]!.toFixed(1);
  } finally {
    await sightline.stop();
    await dir.remove();
  }
  return figures;
}
