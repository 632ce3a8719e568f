import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';
import { toNdjson } from './test-support/query-fixture-data.js';

// GET /sites/{id}/funnels/{funnel_id}/report over HTTP: the history goes in through
// POST /imports (the real sessionizer cuts the visits), the funnel through the goal and
// funnel routes, and every figure is checked against the derivation in the comments.
const pgGate = await backendGate('postgres');

type Figures = {
  visitors: number;
  conversion_rate: number | null;
  step_conversion_rate: number | null;
  dropoff: number | null;
  median_seconds_to_next: number | null;
};
type Step = Figures & { step: number; goal_id: number; name: string; comparison?: { metrics: Figures; change: Figures } };
interface Report {
  funnel_id: number;
  name: string;
  steps: Step[];
  query: Record<string, unknown>;
  code?: string;
}

/*
 * Funnel "Checkout": 1 page /pricing → 2 page /signup/* → 3 custom event Purchase. Site UTC.
 * W = 2024-03-04..10:
 *   a 03-05 10:00 /pricing, 10:00:30 /about, 10:01 /signup/form, 10:03 Purchase → 3 (60 s, 120 s); DE
 *   b 03-05 09:00 /signup/x, 09:01 /pricing, 09:02 Purchase → 1 (signup before pricing); FR
 *   c 03-06 12:00 /pricing, 12:05 /pricing, 12:10 /signup/a, 12:20 /signup/b → 2 (600 s from the first /pricing); DE
 *   d 03-07 08:00 /pricing | 14:00 /signup/a, 14:01 Purchase (a second visit) → 1; US
 *   e 03-08 10:00 /pricing, 10:01 /signup (not /signup/*), 10:02 Purchase → 1
 *   g 03-06 20:00 /pricing, 20:01 /signup/q → 2 (60 s); FR (03-07 05:00 in Tokyo)
 *   → 6, 3 (a, c, g), 1 (a); median 1→2 of 60, 600, 60 = 60 s; 2→3: 120 s.
 * P = 2024-02-26..03-03: f 03-01 11:00 /pricing, 11:00:20 /signup/z, 11:01 Purchase → 1, 1, 1 (20 s, 40 s).
 */
const row = (visitor: string, timestamp: string, pathname: string, extra: Record<string, unknown> = {}) => ({
  visitor_id: visitor,
  timestamp,
  name: 'pageview',
  pathname,
  ...extra,
});
const buy = (visitor: string, timestamp: string, extra: Record<string, unknown> = {}) => ({
  visitor_id: visitor,
  timestamp,
  name: 'Purchase',
  pathname: '/checkout',
  ...extra,
});
const DE = { country: 'DE' };
const FR = { country: 'FR' };
const US = { country: 'US' };
const ROWS = [
  row('a', '2024-03-05T10:00:00Z', '/pricing', DE),
  row('a', '2024-03-05T10:00:30Z', '/about', DE),
  row('a', '2024-03-05T10:01:00Z', '/signup/form', DE),
  buy('a', '2024-03-05T10:03:00Z', DE),
  row('b', '2024-03-05T09:00:00Z', '/signup/x', FR),
  row('b', '2024-03-05T09:01:00Z', '/pricing', FR),
  buy('b', '2024-03-05T09:02:00Z', FR),
  row('c', '2024-03-06T12:00:00Z', '/pricing', DE),
  row('c', '2024-03-06T12:05:00Z', '/pricing', DE),
  row('c', '2024-03-06T12:10:00Z', '/signup/a', DE),
  row('c', '2024-03-06T12:20:00Z', '/signup/b', DE),
  row('d', '2024-03-07T08:00:00Z', '/pricing', US),
  row('d', '2024-03-07T14:00:00Z', '/signup/a', US),
  buy('d', '2024-03-07T14:01:00Z', US),
  row('e', '2024-03-08T10:00:00Z', '/pricing'),
  row('e', '2024-03-08T10:01:00Z', '/signup'),
  buy('e', '2024-03-08T10:02:00Z'),
  row('g', '2024-03-06T20:00:00Z', '/pricing', FR),
  row('g', '2024-03-06T20:01:00Z', '/signup/q', FR),
  row('f', '2024-03-01T11:00:00Z', '/pricing'),
  row('f', '2024-03-01T11:00:20Z', '/signup/z'),
  buy('f', '2024-03-01T11:01:00Z'),
];
const W = '2024-03-04,2024-03-10';
const figuresOf = (steps: Step[]) => steps.map((s) => [s.visitors, s.conversion_rate, s.step_conversion_rate, s.dropoff, s.median_seconds_to_next]);

describe.skipIf(!pgGate.available)('GET /sites/{id}/funnels/{funnel_id}/report', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let client: ApiClient;
  let owner: Registered;
  let siteId: number;
  let otherSiteId: number;
  let funnelId: number;
  let otherFunnelId: number;
  let goalIds: number[];
  const stamp = Date.now().toString(36);

  async function createSite(name: string): Promise<number> {
    const site = await client.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${name}-${stamp}.sightline-e2e.net`, timezone: 'UTC' },
    });
    expect(site.status).toBe(201);
    return site.body.site_id;
  }

  async function createFunnel(site: number, name: string, goals: Record<string, string>[]): Promise<{ funnelId: number; goalIds: number[] }> {
    const ids: number[] = [];
    for (const goal of goals) {
      const created = await client.request<{ goal_id: number }>('POST', `/api/v1/sites/${site}/goals`, { token: owner.token, body: goal });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.goal_id);
    }
    const funnel = await client.request<{ funnel_id: number }>('POST', `/api/v1/sites/${site}/funnels`, { token: owner.token, body: { name, steps: ids } });
    expect(funnel.status, JSON.stringify(funnel.body)).toBe(201);
    return { funnelId: funnel.body.funnel_id, goalIds: ids };
  }

  async function importRows(site: number, rows: Record<string, unknown>[]): Promise<void> {
    const response = await fetch(`${sightline.url}/api/v1/sites/${site}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body: toNdjson(rows),
    });
    const created = (await response.json()) as { import_id: number };
    expect(response.status, JSON.stringify(created)).toBe(202);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const job = await client.request<{ status: string; rows_accepted: number; errors: unknown[] }>(
        'GET',
        `/api/v1/sites/${site}/imports/${created.import_id}`,
        { token: owner.token },
      );
      if (job.body.status === 'completed') {
        expect([job.body.rows_accepted, job.body.errors]).toEqual([rows.length, []]);
        return;
      }
      if (job.body.status === 'failed' || Date.now() > deadline) throw new Error(`import ended ${JSON.stringify(job.body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const get = (path: string, token: string | undefined = owner.token) => client.request<Report>('GET', path, token === undefined ? {} : { token });
  const reportOf = async (query: string, funnel = funnelId, site = siteId): Promise<Report> => {
    const answer = await get(`/api/v1/sites/${site}/funnels/${funnel}/report?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const codeOf = async (path: string, token?: string) => {
    const answer = await get(path, token);
    return `${answer.status} ${String(answer.body?.code)}`;
  };

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_funnel_report_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      DEFAULT_TIMEZONE: 'UTC',
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    owner = await register(client, smtp, `funnel.${stamp}@mail.sightline-e2e.net`);
    siteId = await createSite('funnel');
    otherSiteId = await createSite('other');
    ({ funnelId, goalIds } = await createFunnel(siteId, 'Checkout', [
      { page_path: '/pricing', display_name: 'Pricing' },
      { page_path: '/signup/*', display_name: 'Signup form' },
      { event_name: 'Purchase' },
    ]));
    ({ funnelId: otherFunnelId } = await createFunnel(otherSiteId, 'Other', [{ page_path: '/a' }, { page_path: '/b' }]));
    await importRows(siteId, ROWS);
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  it('answers each step’s visitors, rates, drop-off and median time, imported events included', async () => {
    const report = await reportOf(`date_range=${W}`);
    expect(report).toEqual({
      funnel_id: funnelId,
      name: 'Checkout',
      steps: [
        { step: 1, goal_id: goalIds[0], name: 'Pricing', visitors: 6, conversion_rate: 100, step_conversion_rate: 100, dropoff: 3, median_seconds_to_next: 60 },
        {
          step: 2,
          goal_id: goalIds[1],
          name: 'Signup form',
          visitors: 3,
          conversion_rate: 50,
          step_conversion_rate: 50,
          dropoff: 2,
          median_seconds_to_next: 120,
        },
        {
          step: 3,
          goal_id: goalIds[2],
          name: 'Purchase',
          visitors: 1,
          conversion_rate: 16.67,
          step_conversion_rate: 33.33,
          dropoff: null,
          median_seconds_to_next: null,
        },
      ],
      query: { site_id: siteId, funnel_id: funnelId, filters: [], date_range: ['2024-03-04', '2024-03-10'] },
    });
  });

  it('a day at a time: out of order, repeated steps, a second visit, a near-miss of the wildcard', async () => {
    // 03-05: a → 3, b → 1 (its /signup/x came before /pricing)
    expect(figuresOf((await reportOf('date_range=2024-03-05,2024-03-05')).steps)).toEqual([
      [2, 100, 100, 1, 60],
      [1, 50, 50, 0, 120],
      [1, 50, 100, null, null],
    ]);
    // 03-07: d's signup and purchase are in its second visit
    expect(figuresOf((await reportOf('date_range=2024-03-07,2024-03-07')).steps)).toEqual([
      [1, 100, 100, 1, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]);
    // 03-08: e's /signup is not /signup/*
    expect(figuresOf((await reportOf('date_range=2024-03-08,2024-03-08')).steps)).toEqual([
      [1, 100, 100, 1, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]);
    // 03-06: c (repeated /pricing and /signup/*: 600 s from the first /pricing) and g (60 s) → median 330
    expect(figuresOf((await reportOf('date_range=2024-03-06,2024-03-06')).steps)).toEqual([
      [2, 100, 100, 0, 330],
      [2, 100, 100, 2, null],
      [0, 0, 0, null, null],
    ]);
  });

  it('filters: a visit field keeps matching visits, an event field visits with a matching event', async () => {
    const filters = (list: unknown) => `date_range=${W}&filters=${encodeURIComponent(JSON.stringify(list))}`;
    // DE: a, c
    expect(figuresOf((await reportOf(filters([{ field: 'country', operator: 'is', values: ['DE'] }]))).steps)).toEqual([
      [2, 100, 100, 0, 330],
      [2, 100, 100, 1, 120],
      [1, 50, 50, null, null],
    ]);
    // a pageview of /about: a only
    expect(figuresOf((await reportOf(filters([{ field: 'page', operator: 'is', values: ['/about'] }]))).steps)).toEqual([
      [1, 100, 100, 0, 60],
      [1, 100, 100, 0, 120],
      [1, 100, 100, null, null],
    ]);
    const echoed = await reportOf(filters([{ field: 'country', operator: 'is_not', values: ['DE', 'FR'] }]));
    expect(echoed.query.filters).toEqual([{ field: 'country', operator: 'is_not', values: ['DE', 'FR'] }]);
    // d (US, 1) and e (no country, 1)
    expect(figuresOf(echoed.steps)).toEqual([
      [2, 100, 100, 2, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]);
  });

  it('compare: previous_period and an explicit window', async () => {
    const report = await reportOf(`date_range=${W}&compare=previous_period`);
    expect(report.query.compare).toEqual(['2024-02-26', '2024-03-03']);
    // P: f → 1, 1, 1 (20 s, 40 s)
    expect(report.steps.map((s) => s.comparison)).toEqual([
      {
        metrics: { visitors: 1, conversion_rate: 100, step_conversion_rate: 100, dropoff: 0, median_seconds_to_next: 20 },
        change: { visitors: 500, conversion_rate: 0, step_conversion_rate: 0, dropoff: null, median_seconds_to_next: 200 },
      },
      {
        metrics: { visitors: 1, conversion_rate: 100, step_conversion_rate: 100, dropoff: 0, median_seconds_to_next: 40 },
        change: { visitors: 200, conversion_rate: -50, step_conversion_rate: -50, dropoff: null, median_seconds_to_next: 200 },
      },
      {
        metrics: { visitors: 1, conversion_rate: 100, step_conversion_rate: 100, dropoff: null, median_seconds_to_next: null },
        change: { visitors: 0, conversion_rate: -83.33, step_conversion_rate: -66.67, dropoff: null, median_seconds_to_next: null },
      },
    ]);
    const explicit = await reportOf(`date_range=${W}&compare=2024-02-26,2024-03-03`);
    expect(explicit.steps.map((s) => s.comparison)).toEqual(report.steps.map((s) => s.comparison));
  });

  it('an empty window answers zeros and null rates', async () => {
    expect(figuresOf((await reportOf('date_range=2023-01-01,2023-01-31')).steps)).toEqual([
      [0, null, null, 0, null],
      [0, null, null, 0, null],
      [0, null, null, null, null],
    ]);
  });

  it('refuses in POST /query’s order: key, reach, funnel, then the query string', async () => {
    const base = `/api/v1/sites/${siteId}/funnels/${funnelId}/report`;
    expect(await codeOf(`${base}?date_range=${W}`, 'sl_not_a_key')).toBe('401 unauthorized');
    const anonymous = await client.request<Report>('GET', `${base}?date_range=${W}`);
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'unauthorized']);
    expect(await codeOf(`/api/v1/sites/987654321/funnels/${funnelId}/report?date_range=nope`)).toBe('404 unknown_site');
    expect(await codeOf(`/api/v1/sites/abc/funnels/${funnelId}/report?date_range=${W}`)).toBe('404 unknown_site');
    expect(await codeOf(`/api/v1/sites/${siteId}/funnels/987654321/report?date_range=nope`)).toBe('404 unknown_funnel');
    expect(await codeOf(`/api/v1/sites/${siteId}/funnels/x1/report?date_range=${W}`)).toBe('404 unknown_funnel');
    // another site's funnel is no funnel of this site
    expect(await codeOf(`/api/v1/sites/${siteId}/funnels/${otherFunnelId}/report?date_range=${W}`)).toBe('404 unknown_funnel');
    expect((await get(`/api/v1/sites/${otherSiteId}/funnels/${otherFunnelId}/report?date_range=${W}`)).status).toBe(200);
    const single = await client.request<{ token: string }>('POST', '/api/v1/keys', {
      token: owner.token,
      body: { name: 'one site', permissions: ['stats:read'], site_id: otherSiteId, expires_in_days: 1 },
    });
    expect(single.status).toBe(201);
    expect(await codeOf(`${base}?date_range=${W}`, single.body.token)).toBe('403 key_not_scoped');
    const writeOnly = await client.request<{ token: string }>('POST', '/api/v1/keys', {
      token: owner.token,
      body: { name: 'no stats', permissions: ['sites:write'], expires_in_days: 1 },
    });
    expect(await codeOf(`${base}?date_range=${W}`, writeOnly.body.token)).toBe('403 insufficient_scope');
    // a stranger's account reaches nothing: the same 404 as a missing site
    const stranger = await register(client.withIp(freshIp()), smtp, `funnel.stranger.${stamp}@mail.sightline-e2e.net`);
    expect(await codeOf(`${base}?date_range=${W}`, stranger.token)).toBe('404 unknown_site');

    expect(await codeOf(base)).toBe('400 invalid_date_range');
    for (const range of ['0d', '91d', 'yesterday', '2024-03-10,2024-03-04', '2024-02-30,2024-03-01'])
      expect(await codeOf(`${base}?date_range=${range}`), range).toBe('400 invalid_date_range');
    const filter = (text: string) => codeOf(`${base}?date_range=${W}&filters=${encodeURIComponent(text)}`);
    expect(await filter('[{"field":"mood","operator":"is","values":["x"]}]')).toBe('400 invalid_filter');
    expect(await filter('[{"field":"page","operator":"is","values":[]}]')).toBe('400 invalid_filter');
    expect(await filter('not json')).toBe('400 invalid_filter');
    expect(await codeOf(`${base}?date_range=${W}&compare=previous`)).toBe('400 invalid_compare');
    expect(await codeOf(`${base}?date_range=${W}&compare=2024-02-01,2024-02-10`)).toBe('400 compare_length_mismatch');
  });

  it('days are the site’s local days: the same funnel in Tokyo', async () => {
    const patched = await client.request('PATCH', `/api/v1/sites/${siteId}`, { token: owner.token, body: { timezone: 'Asia/Tokyo' } });
    expect(patched.status).toBe(200);
    // Tokyo 03-06 = 03-05 15:00Z..03-06 15:00Z: c only (g's 20:00Z is 03-07 05:00 there)
    expect(figuresOf((await reportOf('date_range=2024-03-06,2024-03-06')).steps)).toEqual([
      [1, 100, 100, 0, 600],
      [1, 100, 100, 1, null],
      [0, 0, 0, null, null],
    ]);
    // Tokyo 03-07 = 03-06 15:00Z..03-07 15:00Z: g (2, 60 s) and d (1; its second visit has no /pricing)
    expect(figuresOf((await reportOf('date_range=2024-03-07,2024-03-07')).steps)).toEqual([
      [2, 100, 100, 1, 60],
      [1, 50, 50, 1, null],
      [0, 0, 0, null, null],
    ]);
  });
});
