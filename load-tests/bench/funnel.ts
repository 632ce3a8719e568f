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

/**
 * GET /sites/{id}/funnels/{funnel_id}/report of a 4-step funnel over 30 days, in one
 * process (`npm start`'s composition: gateway → GetSite/GetPlan/GetFunnel → gRPC →
 * query service → chDB), with FUNNEL_BENCH_EVENTS events of ONE site in those 30 days
 * (the query bench's generator): p50/p95 over HTTP beside the same statement run
 * directly on the events store, interleaved run by run, and their ratio.
 */
export async function benchFunnel(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-funnel-');
  const figures: Record<string, string | number> = {};
  // the answer cache off: this measures the engine, not the cache
  const config = loadConfig({ ...process.env, ...NO_BUDGETS, SIGHTLINE_DATA_DIR: dir.path, PORT: '0', HOST: '127.0.0.1', GRPC_DEADLINE_MS: '120000', QUERY_CACHE_MAX_BYTES: '0' });
  const sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
  try {
    const url = sightline.url!;
    const store = sightline.events!;
    const token = await registerOwner(url, dir.path);
    const siteId = (await api<{ site_id: number }>(`${url}/api/v1/sites`, token, { url: 'https://bench-funnel.sightline-bench.net', timezone: TIMEZONE, week_start: 1 })).site_id;
    const goalIds: number[] = [];
    const steps: FunnelStep[] = [];
    for (const goal of GOALS) {
      const created = await api<{ goal_id: number; display_name: string }>(`${url}/api/v1/sites/${siteId}/goals`, token, goal);
      goalIds.push(created.goal_id);
      steps.push({ goal_id: created.goal_id, name: created.display_name, ...goal });
    }
    const funnel = await api<{ funnel_id: number; name: string }>(`${url}/api/v1/sites/${siteId}/funnels`, token, { name: 'Bench', steps: goalIds });

    const started = performance.now();
    const generated = await generateQueryData(store, { siteIds: [siteId], events: EVENTS, days: 30, endMs: Date.now(), seed: SEED });
    figures['generate + load + merge (s)'] = round1((performance.now() - started) / 1000);
    figures['events / sessions of the site (30 days)'] = `${generated.events.toLocaleString('en')} / ${generated.sessions.toLocaleString('en')}`;
    figures['runs per figure (after one warm-up)'] = RUNS;

    const site = { siteId, timezone: TIMEZONE, weekStart: 1, goals: [], nowMs: Date.now() };
    for (const [label, query] of [['30d', 'date_range=30d'], ['30d + compare previous_period', 'date_range=30d&compare=previous_period']] as const) {
      const statements: Array<[string, Record<string, unknown>]> = [];
      const recording = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'query') return (sql: string, params: Record<string, unknown> = {}) => (statements.push([sql, params]), target.query(sql, params));
          return Reflect.get(target, prop, receiver) as unknown;
        },
      }) as EventStore;
      const params = Object.fromEntries(new URLSearchParams(query));
      const answer = await runFunnelReport(recording, { funnel: { funnel_id: funnel.funnel_id, name: funnel.name, steps }, ...parseFunnelQuery(params) }, site);
      figures[`${label}: visitors per step`] = answer.steps.map((s) => s.visitors.toLocaleString('en')).join(' → ');
      const timing = await timePaired(
        () => api(`${url}/api/v1/sites/${siteId}/funnels/${funnel.funnel_id}/report?${query}`, token),
        // the report's statements as the pipeline runs them: side by side
        () => Promise.all(statements.map(([sql, p]) => store.query(sql, p))),
      );
      figures[`${label}: HTTP | ${statements.length} statement(s) direct (p50/p95 ms) | ratio p50 | direct CPU p50 (ms)`] =
        `${timing.http.p50}/${timing.http.p95} | ${timing.direct.p50}/${timing.direct.p95} | ${(timing.http.p50 / timing.direct.p50).toFixed(2)} | ${timing.directCpu}`;
    }
    figures['1-min load average at the end (2 cores)'] = os.loadavg()[0]!.toFixed(1);
  } finally {
    await sightline.stop();
    await dir.remove();
  }
  return figures;
}
