import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

// POST /api/v1/query and GET /api/v1/props over HTTP: every 400/403/404 code and the
// checks the gateway makes before the query service runs (real PostgreSQL + chDB).
const pgGate = await backendGate('postgres');

describe.skipIf(!pgGate.available)('query over HTTP', () => {
  let database: TestDatabase;
  let sql: pg.Client;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let client: ApiClient;
  let owner: Registered;
  let siteA: number;
  let siteB: number;
  let n = 0;
  const unique = () => `${Date.now().toString(36)}${(n += 1)}`;

  const query = (body: Record<string, unknown>, token = owner.token) => client.request<Record<string, unknown>>('POST', '/api/v1/query', { token, body });
  const codeOf = async (body: Record<string, unknown>, token?: string) => {
    const answer = await query(body, token);
    return `${answer.status} ${String(answer.body.code)}`;
  };

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_query_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      PUBLIC_URL: 'https://stats.sightline-e2e.net',
      REPORT_CACHE_TTL_MS: '0',
    }); // the plan test edits the database behind identity's back
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    owner = await register(client, smtp, `query.${unique()}@mail.sightline-e2e.net`);
    const create = async () =>
      (await client.request<{ site_id: number }>('POST', '/api/v1/sites', { token: owner.token, body: { url: `https://q-${unique()}.sightline-e2e.net` } }))
        .body.site_id;
    siteA = await create();
    siteB = await create();
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  it('answers an aggregate with the resolved window echoed', async () => {
    const answer = await query({ site_id: siteA, metrics: ['visitors', 'visit_duration'], date_range: ['2026-01-01', '2026-01-07'] });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      results: [{ metrics: { visitors: 0, visit_duration: null } }],
      has_import: false,
      query: { site_id: siteA, metrics: ['visitors', 'visit_duration'], dimensions: [], filters: [], date_range: ['2026-01-01', '2026-01-07'] },
    });
    const breakdown = await query({ site_id: siteA, metrics: ['visitors'], dimensions: ['event:goal'], date_range: '7d', limit: 5 });
    expect(breakdown.body).toMatchObject({ results: [], meta: { total: 0, limit: 5, offset: 0, has_more: false } });
  });

  it('answers each 400 code of the query language', async () => {
    const base = { site_id: siteA, metrics: ['visitors'], date_range: '7d' };
    expect(await codeOf({ site_id: siteA, date_range: '7d' })).toBe('400 metrics_required');
    expect(await codeOf({ ...base, metrics: ['sales'] })).toBe('400 unknown_metric');
    expect(await codeOf({ ...base, metrics: ['events'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, dimensions: ['visit:source', 'visit:os'] })).toBe('400 too_many_dimensions');
    expect(await codeOf({ ...base, dimensions: ['visit:mood'] })).toBe('400 unknown_dimension');
    expect(await codeOf({ ...base, date_range: '365d' })).toBe('400 invalid_date_range');
    expect(await codeOf({ ...base, dimensions: ['time:minute'] })).toBe('400 invalid_interval');
    expect(await codeOf({ ...base, filters: [{ field: 'event', operator: 'is', values: ['pageview'] }] })).toBe('400 invalid_filter');
    expect(await codeOf({ ...base, filters: [{ field: 'page', operator: 'is' }] })).toBe('400 invalid_filter');
    expect(await codeOf({ ...base, dimensions: ['event:props:plan'] })).toBe('400 event_filter_required');
    expect(await codeOf({ ...base, compare: 'last_year' })).toBe('400 invalid_compare');
    expect(await codeOf({ ...base, date_range: ['2026-01-01', '2026-01-07'], compare: ['2025-01-01', '2025-01-03'] })).toBe('400 compare_length_mismatch');
    expect(await codeOf({ ...base, limit: 10 })).toBe('400 limit_offset_misuse');
    expect(await codeOf({ metrics: ['visitors'], date_range: '7d' })).toBe('400 site_id_required');
    expect(await codeOf({ ...base, colour: 'red' })).toBe('400 invalid_request');
  });

  it('answers each way a request can break a 400 rule (variants of every code)', async () => {
    const base = { site_id: siteA, metrics: ['visitors'], date_range: ['2026-01-01', '2026-01-07'] };
    // a body that is not JSON at all
    const raw = await fetch(`${sightline.url}/api/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: '{"site_id":',
    });
    expect([raw.status, ((await raw.json()) as { code: string }).code]).toEqual([400, 'invalid_request']);
    expect(await codeOf({ ...base, metrics: [] })).toBe('400 metrics_required');
    expect(await codeOf({ ...base, metrics: ['visitors', 'Visitors'] })).toBe('400 unknown_metric');
    // real metrics the shape or dimension cannot compute
    expect(await codeOf({ ...base, metrics: ['conversion_rate'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, metrics: ['time_on_page'], dimensions: ['time:day'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, metrics: ['exit_rate'], dimensions: ['event:page'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, metrics: ['pageviews'], dimensions: ['visit:source'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, metrics: ['visitors'], dimensions: ['event:status_code'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, metrics: ['conversion_rate'], dimensions: ['event:name'] })).toBe('400 metric_not_available');
    // engagement_time: "all shapes" in the metric table, yet no breakdown dimension lists it
    expect(await codeOf({ ...base, metrics: ['engagement_time'], dimensions: ['visit:source'] })).toBe('400 metric_not_available');
    expect(await codeOf({ ...base, dimensions: ['time:day', 'time:week'] })).toBe('400 too_many_dimensions');
    expect(await codeOf({ ...base, dimensions: ['event:props:'] })).toBe('400 unknown_dimension');
    expect(await codeOf({ ...base, dimensions: ['time:year'] })).toBe('400 unknown_dimension');
    for (const range of [
      '0d',
      '91d',
      'yesterday',
      '',
      ['2026-01-07', '2026-01-01'],
      ['2025-01-01', '2026-01-02'],
      ['2026-02-30', '2026-03-01'],
      ['2026-01-01'],
    ]) {
      expect(await codeOf({ ...base, date_range: range }), JSON.stringify(range)).toBe('400 invalid_date_range');
    }
    expect(await codeOf({ site_id: siteA, metrics: ['visitors'] })).toBe('400 invalid_date_range');
    // hour buckets over more than 31 days; minutes outside realtime
    expect(await codeOf({ ...base, date_range: ['2026-01-01', '2026-02-15'], dimensions: ['time:hour'] })).toBe('400 invalid_interval');
    expect(await codeOf({ ...base, date_range: '7d', dimensions: ['time:minute'] })).toBe('400 invalid_interval');
    const filter = (f: Record<string, unknown>) => codeOf({ ...base, filters: [f] });
    expect(await filter({ field: 'mood', operator: 'is', values: ['x'] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'page', operator: 'matches', values: ['/x'] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'page', operator: 'is', values: [] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'event:page', operator: 'is', values: ['/x'] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'event', operator: 'is', values: ['Signup', 'Login'] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'event', operator: 'is_not', values: ['Signup'] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'event', operator: 'is', values: ['engagement'] })).toBe('400 invalid_filter');
    expect(await filter({ field: 'plan', operator: 'is', values: ['pro'] })).toBe('400 invalid_filter');
    expect(await codeOf({ ...base, dimensions: ['event:props:plan'], filters: [{ field: 'page', operator: 'is', values: ['/'] }] })).toBe(
      '400 event_filter_required',
    );
    expect(await codeOf({ ...base, compare: ['2025-12-01'] })).toBe('400 invalid_compare');
    expect(await codeOf({ ...base, compare: ['2025-12-07', '2025-12-01'] })).toBe('400 invalid_compare');
    expect(await codeOf({ ...base, compare: 'previous' })).toBe('400 invalid_compare');
    expect(await codeOf({ ...base, compare: ['2025-12-01', '2025-12-08'] })).toBe('400 compare_length_mismatch');
    expect(await codeOf({ ...base, offset: 0 })).toBe('400 limit_offset_misuse');
    expect(await codeOf({ ...base, dimensions: ['time:day'], offset: 5 })).toBe('400 limit_offset_misuse');
    expect(await codeOf({ ...base, dimensions: ['time:day'], limit: 5 })).toBe('400 limit_offset_misuse');
  });

  it('checks reach and key scope: 404 unknown_site, 403 key_not_scoped, 403 insufficient_scope; a single-site key may omit site_id', async () => {
    expect(await codeOf({ site_id: 987_654_321, metrics: ['visitors'], date_range: '7d' })).toBe('404 unknown_site');
    const single = await client.request<{ token: string }>('POST', '/api/v1/keys', {
      token: owner.token,
      body: { name: 'one site', permissions: ['stats:read'], site_id: siteB, expires_in_days: 1 },
    });
    expect(single.status).toBe(201);
    expect(await codeOf({ site_id: siteA, metrics: ['visitors'], date_range: '7d' }, single.body.token)).toBe('403 key_not_scoped');
    const own = await query({ metrics: ['visitors'], date_range: '7d' }, single.body.token);
    expect(own.status).toBe(200);
    expect((own.body.query as { site_id: number }).site_id).toBe(siteB);
    const writeOnly = await client.request<{ token: string }>('POST', '/api/v1/keys', {
      token: owner.token,
      body: { name: 'no stats', permissions: ['sites:write'], expires_in_days: 1 },
    });
    expect(await codeOf({ site_id: siteA, metrics: ['visitors'], date_range: '7d' }, writeOnly.body.token)).toBe('403 insufficient_scope');
    // GET /props answers the same codes
    const props = async (siteId: number | null, token: string) => {
      const answer = await client.request<Record<string, unknown>>('GET', `/api/v1/props?${siteId === null ? '' : `site_id=${siteId}&`}date_range=7d`, {
        token,
      });
      return `${answer.status} ${String(answer.body.code)}`;
    };
    expect(await props(987_654_321, owner.token)).toBe('404 unknown_site');
    expect(await props(siteA, single.body.token)).toBe('403 key_not_scoped');
    expect(await props(null, single.body.token)).toBe('200 undefined');
    expect(await props(siteA, writeOnly.body.token)).toBe('403 insufficient_scope');
    // no key, or a key that is not one: 401 on both routes
    expect(await codeOf({ site_id: siteA, metrics: ['visitors'], date_range: '7d' }, 'sl_not_a_key')).toBe('401 unauthorized');
    const anonymous = await client.request<Record<string, unknown>>('GET', `/api/v1/props?site_id=${siteA}&date_range=7d`);
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'unauthorized']);
  });

  it('lists property keys with GET /props under the same rules', async () => {
    const props = await client.request<Record<string, unknown>>('GET', `/api/v1/props?site_id=${siteA}&date_range=2026-01-01,2026-01-31`, {
      token: owner.token,
    });
    expect(props).toMatchObject({ status: 200, body: { props: [], date_range: ['2026-01-01', '2026-01-31'] } });
    const bad = await client.request<Record<string, unknown>>('GET', `/api/v1/props?site_id=${siteA}&date_range=forever`, { token: owner.token });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_date_range']);
    const noSite = await client.request<Record<string, unknown>>('GET', '/api/v1/props?date_range=7d', { token: owner.token });
    expect([noSite.status, noSite.body.code]).toEqual([400, 'site_id_required']);
  });

  it('refuses reports after the trial (403 plan_expired) and once the site lapsed (403 tracking_inactive)', async () => {
    const body = { site_id: siteA, metrics: ['visitors'], date_range: '7d' };
    // trial over 3 days ago: reports closed, tracking still in its grace period
    await sql.query("UPDATE identity.accounts SET trial_started_at = now() - interval '33 days', trial_ends_at = now() - interval '3 days'"); // this database holds one account
    expect(await codeOf(body)).toBe('403 plan_expired');
    const expiredProps = await client.request<Record<string, unknown>>('GET', `/api/v1/props?site_id=${siteA}&date_range=7d`, { token: owner.token });
    expect([expiredProps.status, expiredProps.body.code]).toEqual([403, 'plan_expired']);
    // and past the grace period: the site lapsed
    await sql.query("UPDATE identity.accounts SET trial_started_at = now() - interval '60 days', trial_ends_at = now() - interval '30 days'");
    expect(await codeOf(body)).toBe('403 tracking_inactive');
    const props = await client.request<Record<string, unknown>>('GET', `/api/v1/props?site_id=${siteA}&date_range=7d`, { token: owner.token });
    expect([props.status, props.body.code]).toEqual([403, 'tracking_inactive']);
  });
});
