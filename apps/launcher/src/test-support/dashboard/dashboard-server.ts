import { backendGate, backendsRequired } from '@sightline/testkit';
import type { Clock } from '@sightline/runtime';
import { startE2eServer, type E2eServer } from '../e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from '../api-client.js';
import { dashboardBuildDir } from './dashboard-build.js';
import { GOAL, PREVIOUS_ROWS, SITE_HOST, WINDOW_ROWS, recentRows, toNdjson } from './seed.js';

/**
 * One launcher (`--target=all`) per browser test file, holding the hand-built data
 * set of seed.ts on a site whose public dashboard is on. PostgreSQL when it answers
 * (mandatory under SIGHTLINE_REQUIRE_BACKENDS=1), else PGlite — both are the product's
 * own stores; the events store is chDB either way.
 */
export interface DashboardServer {
  server: E2eServer;
  base: string;
  /** the owner's API client (its own client address) and key */
  api: ApiClient;
  owner: Registered & { email: string };
  siteId: number;
  /** the site's share hash: /share/<hash> */
  hash: string;
  /** the tracking key, for live events to POST /api/event */
  trackingKey: string;
  stop(): Promise<void>;
}

export interface DashboardServerOptions {
  /** a name for the test database (one per file) */
  name: string;
  env?: Record<string, string>;
  clock?: Clock;
  /** false: only the account and an empty site (the sign-in suites need no data) */
  seed?: boolean;
}

let counter = 0;
/** An address no other run uses (the tests share one PostgreSQL server). */
export const uniqueEmail = (label: string) => `${label}.${Date.now().toString(36)}${(counter += 1)}@mail.sightline-e2e.net`;

export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const pg = await backendGate('postgres');
  if (!pg.available && !backendsRequired()) console.warn(`[note] ${options.name}: PostgreSQL not reachable, running on PGlite`);
  const server = await startE2eServer({
    ...(pg.available ? { postgres: { url: pg.url, databaseName: `sightline_${options.name.replace(/[^a-z0-9]/gi, '_')}` } } : {}),
    // the share routes' per-address limit is the gateway suite's concern; every page here comes from 127.0.0.1
    env: { DEFAULT_TIMEZONE: 'UTC', DASHBOARD_DIR: await dashboardBuildDir(), SHARE_RATE_LIMIT_PER_MINUTE: '0', ...options.env },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  try {
    const base = server.sightline.url!;
    const api = server.api.withIp(freshIp());
    const email = uniqueEmail('owner');
    const owner = { ...(await register(api, server.smtp, email)), email };
    const site = await api.request<{ site_id: number; hash: string; script_url: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${SITE_HOST}`, timezone: 'UTC' },
    });
    if (site.status !== 201) throw new Error(`POST /sites answered ${site.status}: ${JSON.stringify(site.body)}`);
    const siteId = site.body.site_id;
    const goal = await api.request('POST', `/api/v1/sites/${siteId}/goals`, { token: owner.token, body: { event_name: GOAL } });
    if (goal.status !== 201) throw new Error(`POST /goals answered ${goal.status}: ${JSON.stringify(goal.body)}`);
    const shared = await api.request('PUT', `/api/v1/sites/${siteId}/settings/public-dashboard`, { token: owner.token, body: { enabled: true } });
    if (shared.status !== 200) throw new Error(`PUT public-dashboard answered ${shared.status}: ${JSON.stringify(shared.body)}`);
    if (options.seed !== false) await importRows(base, owner.token, siteId, toNdjson([...WINDOW_ROWS, ...PREVIOUS_ROWS, ...recentRows(new Date())]));
    return {
      server,
      base,
      api,
      owner,
      siteId,
      hash: site.body.hash,
      trackingKey: /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!,
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

interface ImportJob {
  import_id: number;
  status: string;
  rows_accepted: number;
  rows_rejected: number;
  errors: Array<{ line: number; reason: string }>;
}

/** Uploads NDJSON and waits until the job completes with every line accepted. */
export async function importRows(base: string, token: string, siteId: number, ndjson: string): Promise<void> {
  const lines = ndjson.split('\n').length;
  const response = await fetch(`${base}/api/v1/sites/${siteId}/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
    body: ndjson,
  });
  const created = (await response.json()) as ImportJob;
  if (response.status !== 202) throw new Error(`import answered ${response.status}: ${JSON.stringify(created)}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = await fetch(`${base}/api/v1/sites/${siteId}/imports/${created.import_id}`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.json() as Promise<ImportJob>,
    );
    if (job.status === 'completed') {
      if (job.rows_accepted !== lines || job.rows_rejected !== 0)
        throw new Error(`import kept ${job.rows_accepted} of ${lines} lines: ${JSON.stringify(job.errors)}`);
      return;
    }
    if (job.status === 'failed' || Date.now() > deadline) throw new Error(`import ended ${job.status}: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** POST /api/v1/query as the owner: the API's own answer the page must agree with. */
export async function apiQuery<T = QueryAnswer>(dash: DashboardServer, body: Record<string, unknown>): Promise<T> {
  const answer = await dash.api.request<T>('POST', '/api/v1/query', { token: dash.owner.token, body: { site_id: dash.siteId, ...body } });
  if (answer.status !== 200) throw new Error(`POST /query answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export interface QueryRow {
  dimensions?: Record<string, string>;
  labels?: Record<string, string>;
  metrics: Record<string, number | null>;
  /** the previous period's values and each metric's change (percent, or points for rates) */
  comparison?: { metrics: Record<string, number | null>; change: Record<string, number | null> };
}
export interface QueryAnswer {
  results: QueryRow[];
  has_import?: boolean;
  meta?: { total: number; has_more: boolean };
}

/** A live event as the tracker sends it (a desktop browser's UA from a fresh address). */
export async function postLiveEvent(
  dash: DashboardServer,
  event: { n?: string; path: string; referrer?: string; p?: Record<string, string> },
): Promise<number> {
  const response = await fetch(`${dash.base}/api/event`, {
    method: 'POST',
    body: JSON.stringify({
      k: dash.trackingKey,
      n: event.n ?? 'pageview',
      u: `https://${SITE_HOST}${event.path}`,
      d: SITE_HOST,
      ...(event.referrer ? { r: event.referrer } : {}),
      ...(event.p ? { p: event.p } : {}),
    }),
    headers: {
      'content-type': 'text/plain',
      'x-forwarded-for': freshIp(),
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      origin: `https://${SITE_HOST}`,
    },
  });
  return response.status;
}
