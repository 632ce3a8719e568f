import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '@sightline/mailer/testing';
import { backendGate, type TestDatabase } from '@sightline/testkit';
import type { RunningSightline } from './start-sightline.js';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

// Imports through HTTP against the started server: real PostgreSQL for the job
// records, chDB for the rows, the in-process bus for progress.
const pgGate = await backendGate('postgres');
const GA4_FIXTURE = readFileSync(new URL('../../ingest/src/imports/fixtures/ga4-export.ndjson', import.meta.url), 'utf8');
const MAX_BYTES = 200_000;

interface ImportJob {
  import_id: number;
  format: string;
  status: string;
  rows_accepted: number;
  rows_rejected: number;
  errors: Array<{ line: number; reason: string }>;
  range: { from: string | null; to: string | null };
  failure: string | null;
  code?: string;
}

const line = (row: Record<string, unknown>) => JSON.stringify(row);

describe.skipIf(!pgGate.available)('imports over HTTP', () => {
  let database: TestDatabase;
  let server: E2eServer;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let api: ApiClient;
  let n = 0;
  const unique = () => `${Date.now().toString(36)}${(n += 1)}`;

  beforeAll(async () => {
    server = await startE2eServer({
      postgres: { url: pgGate.url, databaseName: 'sightline_imports_e2e' },
      env: { IMPORT_MAX_BYTES: String(MAX_BYTES), DEFAULT_TIMEZONE: 'UTC' },
    });
    ({ sightline, api, smtp } = server);
    database = server.database!;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function owner(): Promise<{ client: ApiClient; who: Registered; email: string; siteId: number }> {
    const client = api.withIp(freshIp());
    const email = `imp.${unique()}@mail.sightline-e2e.net`;
    const who = await register(client, smtp, email);
    const site = await client.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token: who.token,
      body: { url: `https://imp-${unique()}.sightline-e2e.net` },
    });
    expect(site.status).toBe(201);
    return { client, who, email, siteId: site.body.site_id };
  }

  async function upload(token: string, siteId: number, body: string | ReadableStream<Uint8Array>, options: { format?: string; contentType?: string } = {}) {
    const query = options.format ? `?format=${options.format}` : '';
    const response = await fetch(`${sightline.url}/api/v1/sites/${siteId}/imports${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': options.contentType ?? 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body,
      ...(typeof body === 'string' ? {} : { duplex: 'half' }),
    } as RequestInit);
    return { status: response.status, body: (await response.json()) as ImportJob };
  }

  async function settled(token: string, siteId: number, importId: number): Promise<ImportJob> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const job = await api.request<ImportJob>('GET', `/api/v1/sites/${siteId}/imports/${importId}`, { token });
      if (job.body.status === 'completed' || job.body.status === 'failed') return job.body;
      if (Date.now() > deadline) throw new Error(`import ${importId} still ${job.body.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const events = () => sightline.events!;
  const count = async (sql: string, params: Record<string, unknown>) => Number((await events().query<{ c: number }>(sql, params))[0]!.c);

  // Hand-built history. Visitor a: two sessions (10:00–10:12, then 11:00 after a 48-minute gap);
  // visitor b: an engagement with no session before it (rejected), then a pageview and a
  // custom event 15 minutes apart; visitor c: one bounce. Lines 8 and 9 are bad; 10 is blank.
  const history = [
    line({
      timestamp: '2024-03-01T10:00:00Z',
      name: 'pageview',
      visitor_id: 'a',
      hostname: 'www.example.org',
      pathname: '/',
      referrer: 'https://news.ycombinator.com/item?id=1',
      utm_medium: 'referral',
    }), // HN is in GA4's social list: Organic Social wins over Referral
    line({ timestamp: '2024-03-01T10:10:00Z', name: 'pageview', visitor_id: 'a', pathname: '/pricing' }),
    line({ timestamp: '2024-03-01T10:12:00Z', name: 'engagement', visitor_id: 'a', pathname: '/pricing', engagement_ms: 5000, scroll_depth: 80 }),
    line({ timestamp: '2024-03-01T11:00:00Z', name: 'pageview', visitor_id: 'a', pathname: '/docs' }),
    line({ timestamp: '2024-03-01T09:00:00Z', name: 'engagement', visitor_id: 'b', pathname: '/', engagement_ms: 100 }),
    line({ timestamp: '2024-03-01T09:05:00Z', name: 'pageview', visitor_id: 'b', pathname: '/', utm_source: 'newsletter', utm_medium: 'email' }),
    line({ timestamp: '2024-03-01T09:20:00Z', name: 'signup', visitor_id: 'b', pathname: '/', props: { plan: 'pro' } }),
    'not json',
    line({ timestamp: '2024-03-01T09:20:00Z', name: 'pageview', visitor_id: 'c' }),
    '',
    line({
      timestamp: '2024-03-02T00:00:00Z',
      name: 'pageview',
      visitor_id: 'c',
      pathname: '/',
      browser: 'Mobile Safari',
      browser_version: '17.1.2',
      os: 'Mac OS',
      device: 'mobile',
      country: 'de',
      region: 'DE-BE',
      city: 2950159,
    }),
  ].join('\n');

  it('imports NDJSON through the sessionizer: statuses, line errors, sessions, attributes', async () => {
    const { who, siteId } = await owner();
    const created = await upload(who.token, siteId, history);
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'queued', format: 'sightline', rows_accepted: 8, rows_rejected: 2 });
    expect(created.body.errors.map((e) => e.line)).toEqual([8, 9]);
    expect(created.body.errors[0]!.reason).toBe('not valid JSON');
    expect(created.body.errors[1]!.reason).toMatch(/^pathname: /);

    const job = await settled(who.token, siteId, created.body.import_id);
    expect(job.status).toBe('completed');
    // the orphan engagement (line 5) is rejected when sessionized
    expect([job.rows_accepted, job.rows_rejected]).toEqual([7, 3]);
    expect(job.errors.map((e) => e.line)).toEqual([5, 8, 9]);
    expect(job.range).toEqual({ from: '2024-03-01T09:00:00.000Z', to: '2024-03-02T00:00:00.000Z' });

    const id = { site: siteId, id: created.body.import_id };
    expect(await count('SELECT count() AS c FROM events WHERE site_id = {site:UInt64} AND import_id = {id:UInt64}', id)).toBe(7);
    const sessions = await events().query<{
      entry_page: string;
      exit_page: string;
      pageviews: number;
      events: number;
      is_bounce: number;
      duration: number;
      engagement_ms: number;
      source: string;
      channel: string;
      browser: string;
      browser_version: string;
      os: string;
      device: string;
      country: string;
      hostname: string;
    }>(
      'SELECT entry_page, exit_page, pageviews, events, is_bounce, duration, engagement_ms, source, channel, browser, browser_version, os, device, country, hostname FROM sessions WHERE site_id = {site:UInt64} AND import_id = {id:UInt64} ORDER BY start',
      id,
    );
    expect(sessions).toEqual([
      // b: 09:05 pageview + 09:20 signup → 900 s, not a bounce, Email from utm_medium
      {
        entry_page: '/',
        exit_page: '/',
        pageviews: 1,
        events: 2,
        is_bounce: 0,
        duration: 900,
        engagement_ms: 0,
        source: 'newsletter',
        channel: 'Email',
        browser: '',
        browser_version: '',
        os: '',
        device: '',
        country: '',
        hostname: '',
      },
      // a, first visit: two pageviews, 10:00 → 10:10 (the engagement at 10:12 does not extend it)
      {
        entry_page: '/',
        exit_page: '/pricing',
        pageviews: 2,
        events: 2,
        is_bounce: 0,
        duration: 600,
        engagement_ms: 5000,
        source: 'Hacker News',
        channel: 'Organic Social',
        browser: '',
        browser_version: '',
        os: '',
        device: '',
        country: '',
        hostname: 'example.org',
      },
      // a, 48 minutes later: a new visit, a bounce
      {
        entry_page: '/docs',
        exit_page: '/docs',
        pageviews: 1,
        events: 1,
        is_bounce: 1,
        duration: 0,
        engagement_ms: 0,
        source: '',
        channel: 'Direct',
        browser: '',
        browser_version: '',
        os: '',
        device: '',
        country: '',
        hostname: '',
      },
      // c: names normalised to the live vocabulary
      {
        entry_page: '/',
        exit_page: '/',
        pageviews: 1,
        events: 1,
        is_bounce: 1,
        duration: 0,
        engagement_ms: 0,
        source: '',
        channel: 'Direct',
        browser: 'Safari',
        browser_version: '17.1.2',
        os: 'Mac',
        device: 'Mobile',
        country: 'DE',
        hostname: '',
      },
    ]);
    // every event carries its session's attributes; visitors: 3 distinct hashed ids
    expect(await count('SELECT uniqExact(visitor_id) AS c FROM events WHERE site_id = {site:UInt64} AND import_id = {id:UInt64}', id)).toBe(3);
    expect(await count("SELECT count() AS c FROM events WHERE site_id = {site:UInt64} AND import_id = {id:UInt64} AND channel = 'Organic Social'", id)).toBe(3);
    const signup = await events().query<{ prop_keys: string[]; prop_values: string[] }>(
      "SELECT prop_keys, prop_values FROM events WHERE site_id = {site:UInt64} AND name = 'signup'",
      { site: siteId },
    );
    expect(signup).toEqual([{ prop_keys: ['plan'], prop_values: ['pro'] }]);

    const list = await api.request<{ imports: ImportJob[] }>('GET', `/api/v1/sites/${siteId}/imports`, { token: who.token });
    expect(list.body.imports.map((j) => j.import_id)).toEqual([created.body.import_id]);

    // POST /query answers over imported rows like live ones, and flags the window
    const query = (dateRange: [string, string]) =>
      api.request<{ results: Array<{ metrics: Record<string, number> }>; has_import: boolean }>('POST', '/api/v1/query', {
        token: who.token,
        body: { site_id: siteId, metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'], date_range: dateRange },
      });
    const imported = await query(['2024-03-01', '2024-03-02']);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.has_import).toBe(true);
    // 3 visitors, 4 visits (2 bounces → 50 %), 5 pageviews, mean duration (900 + 600 + 0 + 0) / 4 = 375 s
    expect(imported.body.results[0]!.metrics).toEqual({ visitors: 3, visits: 4, pageviews: 5, bounce_rate: 50, visit_duration: 375 });
    const later = await query(['2024-03-05', '2024-03-06']);
    expect([later.body.has_import, later.body.results[0]!.metrics.visitors]).toEqual([false, 0]);
  });

  it('GA4 BigQuery export: mapping, geo names to codes, breakdowns', async () => {
    const { who, siteId } = await owner();
    const created = await upload(who.token, siteId, GA4_FIXTURE, { format: 'ga4-bigquery' });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ format: 'ga4-bigquery', rows_accepted: 7, rows_rejected: 2 });
    expect(created.body.errors.map((e) => e.line)).toEqual([1, 9]);
    const job = await settled(who.token, siteId, created.body.import_id);
    expect([job.status, job.rows_accepted, job.rows_rejected]).toEqual(['completed', 7, 2]);
    const site = { site: siteId };
    const breakdown = (dimension: string) =>
      events().query<{ value: string; visitors: number; pageviews: number }>(
        `SELECT toString(${dimension}) AS value, uniqExact(visitor_id) AS visitors, countIf(name = 'pageview') AS pageviews FROM events WHERE site_id = {site:UInt64} GROUP BY value ORDER BY value`,
        site,
      );
    expect(await breakdown('country')).toEqual([
      { value: 'DE', visitors: 1, pageviews: 2 },
      { value: 'FR', visitors: 1, pageviews: 1 },
      { value: 'US', visitors: 1, pageviews: 1 },
    ]);
    expect((await breakdown('region')).map((r) => r.value)).toEqual(['DE-BY', 'FR-IDF', 'US-CA']);
    // GeoNames ids: Munich, Los Angeles, Paris
    expect((await breakdown('city')).map((r) => r.value)).toEqual(['2867714', '2988507', '5368361']);
    expect((await breakdown('channel')).map((r) => [r.value, r.visitors])).toEqual([
      ['Email', 1],
      ['Organic Search', 1],
      ['Organic Social', 1],
    ]);
    expect((await breakdown('source')).map((r) => r.value)).toEqual(['Google', 'facebook', 'newsletter']);
    // versions as the export writes them (SEMANTICS); only the repeated OS name goes
    expect((await breakdown("concat(browser, ' ', browser_version)")).map((r) => r.value)).toEqual([
      'Chrome 120.0.6099.129',
      'Safari 17.1',
      'Samsung Browser 23.0',
    ]);
    expect((await breakdown("concat(os, ' ', os_version)")).map((r) => r.value)).toEqual(['Android 14', 'Windows 10', 'iOS 17.1.2']);
    expect((await breakdown('device')).map((r) => r.value)).toEqual(['Desktop', 'Mobile', 'Tablet']);
    expect((await breakdown('pathname')).map((r) => [r.value, r.pageviews])).toEqual([
      ['/', 2],
      ['/blog/post-1', 1],
      ['/pricing', 1],
    ]);
    const munich = await events().query<{ pageviews: number; events: number; engagement_ms: number; duration: number; is_bounce: number }>(
      "SELECT pageviews, events, engagement_ms, duration, is_bounce FROM sessions WHERE site_id = {site:UInt64} AND country = 'DE'",
      site,
    );
    // 10:00:00.123 → 10:06:00.123; scroll and user_engagement are engagement; sign_up counts as an event
    expect(munich).toEqual([{ pageviews: 2, events: 3, engagement_ms: 12000, duration: 360, is_bounce: 0 }]);
    expect(await events().query('SELECT name, scroll_depth FROM events WHERE site_id = {site:UInt64} AND scroll_depth != 255', site)).toEqual([
      { name: 'engagement', scroll_depth: 90 },
    ]);
    expect(await events().query("SELECT prop_keys, prop_values FROM events WHERE site_id = {site:UInt64} AND name = 'sign_up'", site)).toEqual([
      { prop_keys: ['method', 'value'], prop_values: ['email', '9.99'] },
    ]);
  });

  it('is documented in the OpenAPI document: the four routes, the NDJSON body, the limit', async () => {
    const yaml = await (await fetch(`${sightline.url}/api/v1/openapi.yaml`)).text();
    expect(yaml).toContain('/sites/{id}/imports:');
    expect(yaml).toContain('/sites/{id}/imports/{import_id}:');
    expect(yaml).toContain('application/x-ndjson');
    expect(yaml).toContain('IMPORT_MAX_BYTES');
    expect(yaml).toMatch(/ga4-bigquery/);
  });

  it('an upload with no valid line ends failed', async () => {
    const { who, siteId } = await owner();
    const created = await upload(who.token, siteId, '{"name":"pageview"}\n[1,2]\n');
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'failed', rows_accepted: 0, rows_rejected: 2 });
    expect(created.body.errors).toEqual([
      { line: 1, reason: expect.stringMatching(/^timestamp: /) },
      { line: 2, reason: 'not a JSON object' },
    ]);
    const job = await settled(who.token, siteId, created.body.import_id);
    expect(job).toMatchObject({ status: 'failed', rows_accepted: 0, rows_rejected: 2, failure: expect.stringContaining('No line') });
  });

  it('refuses other content types, unknown formats, oversized bodies (declared or streamed), foreign sites and members', async () => {
    const { client, who, siteId } = await owner();
    const asJson = await upload(who.token, siteId, '{}', { contentType: 'application/json' });
    expect([asJson.status, asJson.body.code]).toEqual([400, 'invalid_request']);
    const asText = await upload(who.token, siteId, history, { contentType: 'text/plain' });
    expect([asText.status, asText.body.code]).toEqual([400, 'invalid_request']);
    const badFormat = await upload(who.token, siteId, history, { format: 'plausible-csv' });
    expect([badFormat.status, badFormat.body.code]).toEqual([400, 'invalid_request']);

    const big = `${line({ timestamp: '2024-03-01T10:00:00Z', name: 'pageview', visitor_id: 'x', pathname: '/' })}\n`.repeat(Math.ceil(MAX_BYTES / 80) + 10);
    const declared = await upload(who.token, siteId, big);
    expect([declared.status, declared.body.code]).toEqual([413, 'payload_too_large']);
    // chunked: no Content-Length, the limit is counted while streaming; the job ends failed with nothing written
    const bytes = new TextEncoder().encode(big);
    const streamed = await upload(
      who.token,
      siteId,
      new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 16_384) c.enqueue(bytes.slice(i, i + 16_384));
          c.close();
        },
      }),
    );
    expect([streamed.status, streamed.body.code]).toEqual([413, 'payload_too_large']);
    const jobs = await api.request<{ imports: ImportJob[] }>('GET', `/api/v1/sites/${siteId}/imports`, { token: who.token });
    expect(jobs.body.imports).toHaveLength(1);
    const failed = await settled(who.token, siteId, jobs.body.imports[0]!.import_id);
    // the record names the limit, not an interruption
    expect([failed.status, failed.failure]).toEqual([
      'failed',
      `upload exceeds IMPORT_MAX_BYTES (${MAX_BYTES} bytes); nothing was imported. Split the history into several imports.`,
    ]);
    expect(await count('SELECT count() AS c FROM import_staging WHERE site_id = {site:UInt64}', { site: siteId })).toBe(0);
    expect(await count('SELECT count() AS c FROM events WHERE site_id = {site:UInt64}', { site: siteId })).toBe(0);

    const stranger = await owner();
    const foreign = await upload(stranger.who.token, siteId, history);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'unknown_site']);
    expect((await api.request('GET', `/api/v1/sites/${siteId}/imports`, { token: stranger.who.token })).body.code).toBe('unknown_site');
    expect((await api.request('GET', `/api/v1/sites/${siteId}/imports/999999`, { token: who.token })).body.code).toBe('import_not_found');

    const memberEmail = `member.${unique()}@mail.sightline-e2e.net`;
    const member = await register(api.withIp(freshIp()), smtp, memberEmail);
    expect((await client.request('POST', `/api/v1/sites/${siteId}/members`, { token: who.token, body: { email: memberEmail, role: 'member' } })).status).toBe(
      201,
    );
    const asMember = await upload(member.token, siteId, history);
    expect([asMember.status, asMember.body.code]).toEqual([403, 'not_site_owner']);
    expect((await api.request('GET', `/api/v1/sites/${siteId}/imports`, { token: member.token })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/sites/${siteId}/imports/${jobs.body.imports[0]!.import_id}`, { token: member.token })).body.code).toBe(
      'not_site_owner',
    );
  });

  it('DELETE removes exactly that import’s events and sessions, idempotently', async () => {
    const { who, siteId } = await owner();
    const first = await upload(who.token, siteId, history);
    const second = await upload(who.token, siteId, GA4_FIXTURE, { format: 'ga4-bigquery' });
    await settled(who.token, siteId, first.body.import_id);
    await settled(who.token, siteId, second.body.import_id);
    const site = { site: siteId };
    expect(await count('SELECT count() AS c FROM events WHERE site_id = {site:UInt64}', site)).toBe(14);
    const del = await api.request('DELETE', `/api/v1/sites/${siteId}/imports/${first.body.import_id}`, { token: who.token });
    expect(del.status).toBe(204);
    expect(await events().query('SELECT import_id, count() AS c FROM events WHERE site_id = {site:UInt64} GROUP BY import_id', site)).toEqual([
      { import_id: second.body.import_id, c: 7 },
    ]);
    expect(await events().query('SELECT import_id, sum(sign) AS c FROM sessions WHERE site_id = {site:UInt64} GROUP BY import_id', site)).toEqual([
      { import_id: second.body.import_id, c: 3 },
    ]);
    expect((await api.request('DELETE', `/api/v1/sites/${siteId}/imports/${first.body.import_id}`, { token: who.token })).status).toBe(204);
    expect((await api.request('GET', `/api/v1/sites/${siteId}/imports/${first.body.import_id}`, { token: who.token })).body.code).toBe('import_not_found');
    const list = await api.request<{ imports: ImportJob[] }>('GET', `/api/v1/sites/${siteId}/imports`, { token: who.token });
    expect(list.body.imports.map((j) => j.import_id)).toEqual([second.body.import_id]);
    // audited: two creations, one deletion (the repeated DELETE found nothing and records nothing)
    const audit = await api.request<{ entries: Array<{ action: string; details: Record<string, unknown> }> }>('GET', `/api/v1/sites/${siteId}/audit`, {
      token: who.token,
    });
    expect(audit.body.entries.filter((e) => e.action.startsWith('import.')).map((e) => [e.action, e.details.import_id])).toEqual([
      ['import.delete', first.body.import_id],
      ['import.create', second.body.import_id],
      ['import.create', first.body.import_id],
    ]);
  });

  it('deleting the site removes its import jobs and imported rows', async () => {
    const { who, siteId } = await owner();
    const created = await upload(who.token, siteId, history);
    await settled(who.token, siteId, created.body.import_id);
    const site = { site: siteId };
    expect(await count('SELECT count() AS c FROM events WHERE site_id = {site:UInt64}', site)).toBe(7);
    expect((await api.request('DELETE', `/api/v1/sites/${siteId}`, { token: who.token })).status).toBe(204);
    const deadline = Date.now() + 15_000;
    while ((await count('SELECT count() AS c FROM events WHERE site_id = {site:UInt64}', site)) > 0) {
      if (Date.now() > deadline) throw new Error('imported rows still there after site.deleted');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await count('SELECT sum(sign) AS c FROM sessions WHERE site_id = {site:UInt64}', site)).toBe(0);
    const pg = await import('pg');
    const sql = new pg.default.Client({ connectionString: database.url });
    await sql.connect();
    try {
      expect((await sql.query('SELECT count(*)::int AS c FROM sites.import_jobs WHERE site_id = $1', [siteId])).rows[0].c).toBe(0);
    } finally {
      await sql.end();
    }
  });
});
