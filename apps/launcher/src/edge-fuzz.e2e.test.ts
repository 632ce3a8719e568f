import http from 'node:http';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { ERROR_CATALOGUE, isErrorCode } from '@sightline/errors';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, register } from './test-support/api-client.js';
import { eventBodyCases } from './test-support/event-body-fuzzer.js';
import { documentedOperations, generateFuzzRequests, type DocumentedOperation, type OpenApiDocument } from './test-support/openapi-fuzzer.js';
import { parseRawResponse, rawRequest, rawSocketExchange, type RawAnswer } from './test-support/raw-http.js';

// The edge's promise, checked the way a hostile client would test it: whatever is
// sent, the answer is never 5xx, always carries X-Request-ID, and every failure is
// the Error object {code, error, request_id} with a code from the catalogue and
// that code's status. Real PostgreSQL, because it is what refuses NUL bytes.
const pgGate = await backendGate('postgres');

const FUZZ_SEED = 20_261_123;
const FUZZ_COUNT = 800;
const FUZZ_CONCURRENCY = 6;
const EVENT_FUZZ_MUTATIONS = 400;
const OPTIONAL_ERROR_FIELDS = new Set(['hint', 'docs']);

/** Everything wrong with one answer, as readable sentences (empty = conforming). */
function edgeViolations(answer: RawAnswer, method: string): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  const requestId = answer.headers['x-request-id'];
  if (typeof requestId !== 'string' || !requestId.startsWith('req_')) problems.push('no X-Request-ID');
  if (answer.status < 400 || method === 'HEAD') return problems;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return [...problems, `error body is not JSON: ${answer.text.slice(0, 120)}`];
  }
  const extra = Object.keys(body).filter((key) => !['code', 'error', 'request_id'].includes(key) && !OPTIONAL_ERROR_FIELDS.has(key));
  if (extra.length > 0) problems.push(`unexpected fields ${extra.join(', ')}`);
  if (!isErrorCode(body.code)) problems.push(`code ${String(body.code)} is not in the catalogue`);
  else if (ERROR_CATALOGUE[body.code].status !== answer.status) problems.push(`code ${body.code} answered with ${answer.status}`);
  if (typeof body.error !== 'string' || body.error.length === 0) problems.push('no error message');
  if (body.request_id !== requestId) problems.push('request_id differs from X-Request-ID');
  return problems;
}

describe.skipIf(!pgGate.available)('the edge under hostile requests (OpenAPI-driven fuzzing)', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let base: string;
  let token: string;
  let siteId: string;
  let operations: DocumentedOperation[];
  // one connection per request: a hang-up is then the server's doing, not a keep-alive race
  const agent = new http.Agent({ keepAlive: false, maxSockets: FUZZ_CONCURRENCY });

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_edge_fuzz');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      // the fuzzer's writes must reach the services, not stop at an exhausted budget
      BUDGET_WRITE_PER_HOUR: '100000',
      BUDGET_ACCOUNT_PER_HOUR: '100000',
      BUDGET_KEY_PER_HOUR: '100000',
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    base = sightline.url!;
    const api = new ApiClient(base, '203.0.113.77');
    token = (await register(api, smtp, 'fuzz-owner@mail.sightline-e2e.net')).token;
    const site = await api.request<{ site_id: number }>('POST', '/api/v1/sites', { token, body: { url: 'https://fuzz.sightline-e2e.net' } });
    siteId = String(site.body.site_id);
    const document = parseYaml(await (await fetch(`${base}/api/v1/openapi.yaml`)).text()) as OpenApiDocument;
    operations = documentedOperations(document);
  }, 120_000);

  afterAll(async () => {
    agent.destroy();
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  it('serves every documented operation where the document says it is', async () => {
    expect(operations.length).toBeGreaterThan(30);
    const misplaced: string[] = [];
    for (const operation of operations) {
      const path = operation.absoluteTemplate.replace(/\{[^}]+\}/g, (whole) => (whole === '{id}' ? siteId : '1'));
      const answer = await rawRequest(base, { method: operation.method, path, headers: { authorization: `Bearer ${token}` } }, agent);
      const code = answer.status === 404 || answer.status === 405 ? (JSON.parse(answer.text) as { code: string }).code : undefined;
      if (code === 'not_found' || code === 'method_not_allowed') misplaced.push(`${operation.method} ${operation.absoluteTemplate} → ${code}`);
    }
    expect(misplaced).toEqual([]);
    expect(operations.map((o) => `${o.method} ${o.absoluteTemplate}`)).toContain('POST /api/event');
  });

  it(`answers ${FUZZ_COUNT} seeded malformed requests with no 5xx, an X-Request-ID and a catalogue error object`, async () => {
    const requests = generateFuzzRequests(operations, { seed: FUZZ_SEED, count: FUZZ_COUNT, token, knownIds: { id: siteId }, spare: ['DELETE /sites/{id}'] });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: FUZZ_CONCURRENCY }, async () => {
        while (next < requests.length) {
          const request = requests[next]!;
          next += 1;
          const answer = await rawRequest(base, request, agent).catch((error: Error) => error);
          if (answer instanceof Error) {
            failures.push(`${request.method} ${request.path.slice(0, 90)} [${request.label}] → no answer: ${answer.message}`);
            continue;
          }
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const problems = edgeViolations(answer, request.method);
          if (problems.length > 0)
            failures.push(`${request.method} ${request.path.slice(0, 90)} [${request.label}] → ${answer.status}: ${problems.join('; ')}`);
        }
      }),
    );
    console.info(`edge fuzz: ${FUZZ_COUNT} requests in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(failures.slice(0, 25)).toEqual([]);
    // the run must have reached past the edge: successes and failures both occur
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true);
  }, 120_000);

  it(`answers POST /api/event with ${EVENT_FUZZ_MUTATIONS}+ malformed bodies by the expected 4xx error object, never 5xx, and keeps collecting`, async () => {
    // a site of its own: the OpenAPI fuzzing above may have changed or deleted the shared one
    const site = await new ApiClient(base, '203.0.113.77').request<{ script_url: string }>('POST', '/api/v1/sites', {
      token,
      body: { url: 'https://event-fuzz.sightline-e2e.net' },
    });
    expect(site.status).toBe(201);
    const trackingKey = /\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
    const valid = { k: trackingKey, n: 'pageview', u: 'https://event-fuzz.sightline-e2e.net/p', d: 'event-fuzz.sightline-e2e.net' };
    const send = (body: string | Buffer, contentType: string | undefined) =>
      rawRequest(
        base,
        {
          method: 'POST',
          path: '/api/event',
          headers: { 'x-forwarded-for': '198.51.100.200', 'user-agent': 'sightline-fuzz/1.0', ...(contentType ? { 'content-type': contentType } : {}) },
          body,
        },
        agent,
      );
    const cases = eventBodyCases(valid, { seed: FUZZ_SEED, mutations: EVENT_FUZZ_MUTATIONS });
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: FUZZ_CONCURRENCY }, async () => {
        while (next < cases.length) {
          const c = cases[next]!;
          next += 1;
          const answer = await send(c.body, c.contentType).catch((error: Error) => error);
          if (answer instanceof Error) failures.push(`[${c.label}] → no answer: ${answer.message}`);
          else {
            const problems = edgeViolations(answer, 'POST');
            if (!c.expected.includes(answer.status)) problems.push(`status ${answer.status}, expected ${c.expected.join(' or ')}`);
            if (problems.length > 0) failures.push(`[${c.label}] → ${answer.status} ${answer.text.slice(0, 100)}: ${problems.join('; ')}`);
          }
        }
      }),
    );
    expect(failures.slice(0, 25)).toEqual([]);
    expect(cases.length).toBeGreaterThan(EVENT_FUZZ_MUTATIONS + 100);
    // the server is still there and still collects
    expect((await send(JSON.stringify(valid), 'text/plain')).status).toBe(202);
  }, 120_000);

  it('answers deep nesting and prototype keys in every JSON body with 400 invalid_request saying which', async () => {
    // 20 KB nested 10,000 deep overflowed the stack of POST /query; /api/event takes 8 KiB at most
    const deep = (levels: number) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    const cases: Array<[string, string, string]> = [
      ['nested 10,000 deep', deep(10_000), 'The body nests deeper than 32 levels of arrays and objects.'],
      ['nested 33 deep', deep(32), 'The body nests deeper than 32 levels of arrays and objects.'],
      ['__proto__', '{"__proto__":{"polluted":true}}', 'Unknown field: __proto__.'],
      ['escaped __proto__ in a list', '{"filters":[{"\\u005f_proto__":{"polluted":true}}]}', 'Unknown field: __proto__.'],
      ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}}}', 'Unknown field: constructor.'],
    ];
    const refusedBy400: string[] = [];
    for (const operation of operations.filter((o) => o.body)) {
      const path = operation.absoluteTemplate.replace('{id}', siteId).replace(/\{[^}]+\}/g, '1');
      for (const [label, text, message] of cases) {
        const body = operation.template === '/api/event' && text.length > 8_000 ? deep(3_000) : text;
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.201' };
        const answer = await rawRequest(base, { method: operation.method, path, headers, body }, agent);
        const where = `${operation.method} ${operation.template} ${label}`;
        expect(edgeViolations(answer, operation.method), where).toEqual([]);
        // a permission the owner's key lacks (billing:write) is refused before the body is read
        if (answer.status === 403) continue;
        expect([answer.status, JSON.parse(answer.text).code, JSON.parse(answer.text).error], where).toEqual([400, 'invalid_request', message]);
        refusedBy400.push(`${operation.method} ${operation.template}`);
      }
    }
    expect(refusedBy400).toEqual(expect.arrayContaining(['POST /query', 'POST /api/event', 'POST /sites', 'POST /auth/send-otp']));
  });

  it('answers POST /query and GET /props with the spec’s date codes for dates outside 1900–2299, and numbers inside', async () => {
    const api = new ApiClient(base, '203.0.113.77');
    const site = await api.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token,
      body: { url: 'https://dates.sightline-e2e.net', timezone: 'Pacific/Kiritimati' },
    });
    expect(site.status).toBe(201);
    const query = (body: Record<string, unknown>) =>
      api.request<{ code?: string; results?: unknown[] }>('POST', '/api/v1/query', {
        token,
        body: { site_id: site.body.site_id, metrics: ['visitors'], ...body },
      });
    for (const range of [
      ['0500-01-01', '0500-01-02'],
      ['0000-01-01', '0000-01-01'],
      ['0999-12-31', '1000-01-01'],
      ['9999-12-31', '9999-12-31'],
    ]) {
      const answers = [
        await query({ date_range: range }),
        await query({ date_range: ['2026-01-01', '2026-01-01'], compare: [range[0], range[0]] }),
        await api.request<{ code?: string }>('GET', `/api/v1/props?site_id=${site.body.site_id}&date_range=${range.join(',')}`, { token }),
      ];
      expect(
        answers.map((a) => [a.status, a.body.code]),
        range.join(),
      ).toEqual([
        [400, 'invalid_date_range'],
        [400, 'invalid_compare'],
        [400, 'invalid_date_range'],
      ]);
    }
    expect((await query({ date_range: ['1900-01-01', '1900-01-07'], compare: 'previous_period' })).body.code).toBe('invalid_compare');
    const edges = await query({ date_range: ['1900-01-01', '1900-01-02'], dimensions: ['time:day'] });
    expect([edges.status, edges.body.results]).toEqual([
      200,
      [
        { dimensions: { 'time:day': '1900-01-01' }, metrics: { visitors: 0 } },
        { dimensions: { 'time:day': '1900-01-02' }, metrics: { visitors: 0 } },
      ],
    ]);
    expect((await query({ date_range: ['2299-12-31', '2299-12-31'], compare: 'previous_period' })).status).toBe(200);
  });

  it('answers an empty Idempotency-Key and a repeated site_id with 400 saying what is wrong', async () => {
    const emptyKey = await rawRequest(
      base,
      {
        method: 'POST',
        path: '/api/v1/sites',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': '' },
        body: JSON.stringify({ url: 'https://empty-key.sightline-e2e.net' }),
      },
      agent,
    );
    expect([emptyKey.status, JSON.parse(emptyKey.text).code, JSON.parse(emptyKey.text).error]).toEqual([
      400,
      'invalid_request',
      'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    ]);
    const repeated = await rawRequest(
      base,
      { method: 'GET', path: `/api/v1/props?site_id=${siteId}&site_id=${siteId}&date_range=7d`, headers: { authorization: `Bearer ${token}` } },
      agent,
    );
    expect([repeated.status, JSON.parse(repeated.text).code]).toEqual([400, 'invalid_request']);
    expect(JSON.parse(repeated.text).error).toContain('site_id must be a positive integer, given once.');
    expect(JSON.parse(repeated.text).error).not.toContain('NaN');
  });

  it('answers an id beyond 2^53 on every site route with 404 unknown_site', async () => {
    const siteRoutes = operations.filter((o) => o.absoluteTemplate.includes('{id}'));
    expect(siteRoutes.length).toBeGreaterThanOrEqual(21);
    for (const operation of siteRoutes) {
      for (const id of ['9007199254740992', '9007199254740993', '99999999999999999999']) {
        const path = operation.absoluteTemplate.replace('{id}', id).replace(/\{[^}]+\}/g, '1');
        const body = operation.body ? '{}' : undefined;
        const answer = await rawRequest(
          base,
          { method: operation.method, path, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body },
          agent,
        );
        // a body check may answer first (400); an id check never answers 5xx and an unknown id is 404
        expect(edgeViolations(answer, operation.method), `${operation.method} ${path}`).toEqual([]);
        if (answer.status !== 400) expect(JSON.parse(answer.text).code, `${operation.method} ${path}`).toBe('unknown_site');
      }
    }
  });

  it('answers an expiry that is not a whole number of days with 400 invalid_expiry on both routes that take one', async () => {
    for (const days of [-1, 1.5, 1e308, 0, 366, 2 ** 32]) {
      const created = await rawRequest(
        base,
        {
          method: 'POST',
          path: '/api/v1/keys',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'k', permissions: ['stats:read'], expires_in_days: days }),
        },
        agent,
      );
      expect([created.status, JSON.parse(created.text).code], `POST /keys ${days}`).toEqual([400, 'invalid_expiry']);
      const verified = await rawRequest(
        base,
        {
          method: 'POST',
          path: '/api/v1/auth/verify-otp',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.78' },
          body: JSON.stringify({ email: 'nobody@mail.sightline-e2e.net', code: '123456', accept_terms: true, key_name: 'k', expires_in_days: days }),
        },
        agent,
      );
      expect([verified.status, JSON.parse(verified.text).code], `verify-otp ${days}`).toEqual([400, 'invalid_expiry']);
    }
  });

  it('answers a key id PostgreSQL cannot store with 404 api_key_not_found', async () => {
    for (const path of ['/api/v1/keys/%00', '/api/v1/keys/key_%00', '/api/v1/keys/%00/rotate']) {
      const answer = await rawRequest(
        base,
        { method: path.endsWith('rotate') ? 'POST' : 'DELETE', path, headers: { authorization: `Bearer ${token}` } },
        agent,
      );
      expect(edgeViolations(answer, 'DELETE')).toEqual([]);
      expect([answer.status, JSON.parse(answer.text).code], path).toEqual([404, 'api_key_not_found']);
    }
  });

  it('answers router-level failures (long segment, bad percent-encoding) with the error object', async () => {
    for (const path of [`/api/v1/sites/${'a'.repeat(300)}`, '/api/v1/sites/1%', '/api/v1/sites/%zz/goals', `/api/v1/keys/${'k'.repeat(250)}`]) {
      const answer = await rawRequest(
        base,
        { method: path.startsWith('/api/v1/keys') ? 'DELETE' : 'GET', path, headers: { authorization: `Bearer ${token}` } },
        agent,
      );
      expect(edgeViolations(answer, 'GET'), path).toEqual([]);
      expect([answer.status, JSON.parse(answer.text).code], path).toEqual([400, 'invalid_request']);
    }
  });

  it('answers requests Node’s HTTP parser refuses with the error object and an X-Request-ID', async () => {
    const cases = {
      'unknown method': 'FOO /api/v1/sites HTTP/1.1\r\nHost: x\r\n\r\n',
      'body shorter than Content-Length':
        'POST /api/v1/auth/send-otp HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"email":',
      'header without a colon': 'GET /api/v1/sites HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'space in the target': 'GET /api/v1/sites /x HTTP/1.1\r\nHost: x\r\n\r\n',
      'oversized header': `GET /api/v1/sites HTTP/1.1\r\nHost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`,
    };
    for (const [label, bytes] of Object.entries(cases)) {
      const answer = parseRawResponse(await rawSocketExchange(base, bytes));
      expect(answer, label).toBeDefined();
      expect(edgeViolations(answer!, 'GET'), label).toEqual([]);
      expect(answer!.status, label).toBe(label === 'oversized header' ? 413 : 400);
    }
  });
});
