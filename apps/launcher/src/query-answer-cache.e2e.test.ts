import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger, grpcServerHandled, queryAnswers, readMetricValue } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, waitFor, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, codeFromMail, freshIp, register, type Registered } from './test-support/api-client.js';
import { CORE_ROWS, toNdjson } from './test-support/query-fixture-data.js';

// The gateway's query answer cache over the real launcher (gateway → gRPC → query
// service → chDB): what reaches the query service is counted on its gRPC server.
const pgGate = await backendGate('postgres');

const W: [string, string] = ['2024-03-04', '2024-03-10'];
const LATER: [string, string] = ['2024-06-03', '2024-06-09'];
const LIVE_TTL_MS = 1_500;

/** Query/Query and Query/ListProps calls the query service answered (any outcome) */
async function queryServiceCalls(): Promise<number> {
  const { values } = await grpcServerHandled.get();
  return values.filter((v) => /\/(Query|ListProps)$/.test(String(v.labels.method))).reduce((sum, v) => sum + v.value, 0);
}

describe.skipIf(!pgGate.available)('query answer cache over the launcher', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let client: ApiClient;
  let owner: Registered;
  let ownerEmail: string;
  let siteA: { id: number; hash: string };
  let siteB: { id: number; hash: string };
  const stamp = Date.now().toString(36);

  const query = (body: Record<string, unknown>, siteId = siteA.id) =>
    client.request<{ results: Array<{ metrics: Record<string, number> }>; code?: string }>('POST', '/api/v1/query', {
      token: owner.token,
      body: { site_id: siteId, ...body },
    });
  /** what reached the query service while `run` ran */
  const callsDuring = async (run: () => Promise<unknown>): Promise<number> => {
    const before = await queryServiceCalls();
    await run();
    return (await queryServiceCalls()) - before;
  };

  async function createSite(name: string): Promise<{ id: number; hash: string }> {
    const site = await client.request<{ site_id: number; hash: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${name}-${stamp}.sightline-e2e.net`, timezone: 'UTC' },
    });
    expect(site.status).toBe(201);
    return { id: site.body.site_id, hash: site.body.hash };
  }

  async function importRows(siteId: number, ndjson: string): Promise<number> {
    const response = await fetch(`${sightline.url}/api/v1/sites/${siteId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body: ndjson,
    });
    const created = (await response.json()) as { import_id: number };
    expect(response.status).toBe(202);
    await waitFor(
      async () =>
        (await client.request<{ status: string }>('GET', `/api/v1/sites/${siteId}/imports/${created.import_id}`, { token: owner.token })).body.status ===
        'completed',
      20_000,
    );
    return created.import_id;
  }

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_answer_cache_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      QUERY_CACHE_LIVE_TTL_MS: String(LIVE_TTL_MS),
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    ownerEmail = `cache.${stamp}@mail.sightline-e2e.net`;
    owner = await register(client, smtp, ownerEmail);
    siteA = await createSite('a');
    siteB = await createSite('b');
    await importRows(siteA.id, toNdjson(CORE_ROWS));
    expect((await client.request('PUT', `/api/v1/sites/${siteA.id}/settings/public-dashboard`, { token: owner.token, body: { enabled: true } })).status).toBe(
      200,
    );
    await waitFor(async () => (await client.request('GET', `/api/v1/share/${siteA.hash}`)).status === 200, 10_000);
    // the setup's news (settings.changed, import.progress) drops site A's answers when it lands: let it land first
    const probe = { metrics: ['visitors'], date_range: ['2024-01-01', '2024-01-01'] };
    await waitFor(async () => {
      await query(probe);
      return (await callsDuring(() => query(probe))) === 0;
    }, 10_000);
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  it('answers identical concurrent queries with one query-service call, then from the cache', async () => {
    const body = { metrics: ['visitors', 'visits', 'pageviews'], date_range: W, dimensions: ['time:day'] };
    let answers: Awaited<ReturnType<typeof query>>[] = [];
    const outcomes = () => Promise.all(['computed', 'joined', 'cached'].map((outcome) => readMetricValue(queryAnswers, { outcome })));
    const before = await outcomes();
    expect(await callsDuring(async () => (answers = await Promise.all(Array.from({ length: 20 }, () => query(body)))))).toBe(1);
    // sightline_query_answers_total says the same: 1 computed, the other 19 joined it or found it cached
    const [computed, joined, cached] = (await outcomes()).map((n, i) => n - before[i]!);
    expect([computed, joined! + cached!]).toEqual([1, 19]);
    expect(new Set(answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`)).size).toBe(1);
    expect(answers[0]!.status).toBe(200);
    // a closed window: kept, served again without a call — to the key and to the share route alike
    expect(await callsDuring(async () => expect((await query(body)).body).toEqual(answers[0]!.body))).toBe(0);
    const { site_id: _site, ...shareBody } = { site_id: 0, ...body };
    expect(
      await callsDuring(async () =>
        expect((await client.request('POST', `/api/v1/share/${siteA.hash}/query`, { body: shareBody })).body).toEqual(answers[0]!.body),
      ),
    ).toBe(0);
    // and to the dashboard's browser session (cookie + CSRF header on the same route)
    const mailsBefore = smtp.received.length;
    expect((await client.request('POST', '/api/v1/auth/send-otp', { body: { email: ownerEmail } })).status).toBe(200);
    const code = await codeFromMail(smtp, ownerEmail, mailsBefore);
    const session = await client.request<{ csrf_token: string }>('POST', '/web/session', { body: { email: ownerEmail, code } });
    expect(session.status).toBe(200);
    const cookie = /^sightline_session=([^;]*)/.exec(session.headers.get('set-cookie') ?? '')![1]!;
    const headers = { cookie: `sightline_session=${cookie}`, 'x-csrf-token': session.body.csrf_token };
    expect(
      await callsDuring(async () =>
        expect((await client.request('POST', '/api/v1/query', { body: { site_id: siteA.id, ...body }, headers })).body).toEqual(answers[0]!.body),
      ),
    ).toBe(0);
  });

  it('keys on the parsed query: one query however it is spelled; a malformed one never reaches the service', async () => {
    const body = { metrics: ['visitors', 'pageviews'], date_range: W, dimensions: ['event:page'] };
    const first = await query(body);
    expect(first.status).toBe(200);
    // defaults written out, keys in another order: the same parsed request, the same entry
    expect(
      await callsDuring(async () =>
        expect((await query({ filters: [], dimensions: ['event:page'], date_range: W, metrics: ['visitors', 'pageviews'] })).body).toEqual(first.body),
      ),
    ).toBe(0);
    // the gateway parses after the site checks and before any call: the spec's code, no call
    expect(
      await callsDuring(async () => {
        expect((await query({ metrics: [], date_range: W })).body.code).toBe('metrics_required');
        expect((await query({ ...body, surprise: 1 })).body.code).toBe('invalid_request');
      }),
    ).toBe(0);
  });

  it('never shares an answer between sites, filters, metrics or routes', async () => {
    const base = { metrics: ['visitors'], date_range: W };
    await query(base);
    const variants: Array<[Record<string, unknown>, number]> = [
      [base, siteB.id],
      [{ ...base, filters: [{ field: 'country', operator: 'is', values: ['DE'] }] }, siteA.id],
      [{ ...base, filters: [{ field: 'country', operator: 'is', values: ['FR'] }] }, siteA.id],
      [{ ...base, metrics: ['visits'] }, siteA.id],
      [{ ...base, compare: 'previous_period' }, siteA.id],
    ];
    const seen: unknown[] = [];
    for (const [body, siteId] of variants) {
      expect(await callsDuring(async () => seen.push((await query(body, siteId)).body)), JSON.stringify([body, siteId])).toBe(1);
    }
    // the hand-computed fixture: 3 visitors in W on A, none on B; DE: a and c, FR: b
    expect(seen.map((b) => (b as { results: Array<{ metrics: Record<string, number> }> }).results[0]!.metrics)).toEqual([
      { visitors: 0 },
      { visitors: 2 },
      { visitors: 1 },
      { visits: 4 },
      expect.objectContaining({ visitors: 3 }),
    ]);
    expect(await callsDuring(() => client.request('GET', `/api/v1/props?site_id=${siteA.id}&date_range=${W.join(',')}`, { token: owner.token }))).toBe(1);
  });

  it('never keeps an error', async () => {
    const bad = { metrics: ['sales'], date_range: W };
    expect(
      await callsDuring(async () => {
        expect((await query(bad)).body.code).toBe('unknown_metric');
        expect((await query(bad)).body.code).toBe('unknown_metric');
      }),
    ).toBe(2);
  });

  it('an import completing or deleted drops the site’s answers at once, however long closed windows are kept', async () => {
    const body = { metrics: ['visitors', 'pageviews'], date_range: LATER };
    expect((await query(body)).body.results[0]!.metrics).toEqual({ visitors: 0, pageviews: 0 });
    expect(await callsDuring(() => query(body))).toBe(0);
    const importId = await importRows(
      siteA.id,
      toNdjson([
        { ...CORE_ROWS[0], timestamp: '2024-06-05T10:00:00Z' },
        { ...CORE_ROWS[1], timestamp: '2024-06-05T10:05:00Z' },
      ]),
    );
    // import.progress reaches the gateway beside the job record; within moments, not the closed TTL (1 h)
    await waitFor(async () => (await query(body)).body.results[0]!.metrics.pageviews === 2, 5_000);
    expect((await query(body)).body.results[0]!.metrics).toEqual({ visitors: 1, pageviews: 2 });
    expect(await callsDuring(() => query(body))).toBe(0);
    // deleting the import takes its rows out of a closed window: its answer goes at once too
    expect((await client.request('DELETE', `/api/v1/sites/${siteA.id}/imports/${importId}`, { token: owner.token })).status).toBe(204);
    expect((await query(body)).body.results[0]!.metrics).toEqual({ visitors: 0, pageviews: 0 });
  });

  it('keeps a window reaching today only for the live TTL', async () => {
    const body = { metrics: ['visitors'], date_range: '7d' };
    expect(
      await callsDuring(async () => {
        await query(body);
        await query(body);
      }),
    ).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, LIVE_TTL_MS + 100));
    expect(await callsDuring(() => query(body))).toBe(1);
  });
});
