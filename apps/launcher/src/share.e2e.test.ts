import http from 'node:http';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, waitFor, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';
import { writeDashboardFixture, type DashboardFixture } from './test-support/dashboard-fixture.js';
import { CORE_ROWS, toNdjson } from './test-support/query-fixture-data.js';
import { rawRequest } from './test-support/raw-http.js';

// The public dashboard over HTTP: the share API (GET /share/{hash}, POST …/query,
// GET …/props), the dashboard pages and their files, against real PostgreSQL + chDB
// and a fixture build of the dashboard.
const pgGate = await backendGate('postgres');

const W: [string, string] = ['2024-03-04', '2024-03-10'];
const RATE_LIMIT = 30;
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors ";

describe.skipIf(!pgGate.available)('public dashboard: share API and pages', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let distDir: Awaited<ReturnType<typeof makeTempDir>>;
  let dist: DashboardFixture;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let client: ApiClient;
  let owner: Registered;
  /** imported CORE_ROWS, public */
  let shared: { id: number; hash: string };
  /** no events, public dashboard off (a non-hobby site's default) */
  let closed: { id: number; hash: string };
  /** no events, public: turned off during a test */
  let empty: { id: number; hash: string };
  const stamp = Date.now().toString(36);
  const UNKNOWN_HASH = 'Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9';

  const share = (path: string, options: { body?: unknown; ip?: string } = {}) =>
    (options.ip ? client.withIp(options.ip) : client).request<Record<string, unknown>>(options.body === undefined ? 'GET' : 'POST', `/api/v1/share/${path}`, {
      body: options.body,
    });
  const page = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${sightline.url}${path}`, { headers: { 'x-forwarded-for': freshIp(), ...headers } });
  const setPublic = async (siteId: number, enabled: boolean) =>
    expect((await client.request('PUT', `/api/v1/sites/${siteId}/settings/public-dashboard`, { token: owner.token, body: { enabled } })).status).toBe(200);

  async function createSite(name: string): Promise<{ id: number; hash: string }> {
    const site = await client.request<{ site_id: number; hash: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${name}-${stamp}.sightline-e2e.net`, timezone: 'UTC' },
    });
    expect(site.status).toBe(201);
    return { id: site.body.site_id, hash: site.body.hash };
  }

  async function importRows(siteId: number, ndjson: string): Promise<void> {
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
  }

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_share_e2e');
    dataDir = await makeTempDir();
    distDir = await makeTempDir();
    dist = await writeDashboardFixture(distDir.path);
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      DASHBOARD_DIR: distDir.path,
      SHARE_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      // the plan test edits the database behind identity's back: no plan kept between requests
      REPORT_CACHE_TTL_MS: '0',
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    owner = await register(client, smtp, `share.${stamp}@mail.sightline-e2e.net`);
    shared = await createSite('shared');
    closed = await createSite('closed');
    empty = await createSite('empty');
    expect(
      (await client.request('POST', `/api/v1/sites/${shared.id}/goals`, { token: owner.token, body: { event_name: 'signup', display_name: 'Signup' } })).status,
    ).toBe(201);
    await importRows(shared.id, toNdjson(CORE_ROWS));
    await setPublic(shared.id, true);
    await setPublic(empty.id, true);
    // the public flag reaches the gateway's share lookups through settings.changed: wait for it
    await waitFor(
      async () => (await share(shared.hash, { ip: freshIp() })).status === 200 && (await share(empty.hash, { ip: freshIp() })).status === 200,
      10_000,
    );
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await distDir?.remove();
    await database?.drop();
  });

  describe('share API', () => {
    it('GET /share/{hash}: the domain, timezone and goals, nothing else', async () => {
      const answer = await share(shared.hash, { ip: freshIp() });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ domain: `shared-${stamp}.sightline-e2e.net`, timezone: 'UTC', goals: [{ display_name: 'Signup', event_name: 'signup' }] });
    });

    it('POST /share/{hash}/query answers exactly what POST /query answers the owner', async () => {
      const bodies = [
        { metrics: ['visitors', 'visits', 'pageviews'], date_range: W },
        { metrics: ['visitors'], dimensions: ['event:page'], date_range: W, limit: 2 },
        { metrics: ['visitors', 'conversion_rate'], dimensions: ['event:goal'], date_range: W },
        { metrics: ['visitors'], dimensions: ['time:day'], date_range: W, filters: [{ field: 'country', operator: 'is', values: ['DE'] }] },
      ];
      for (const body of bodies) {
        const viaShare = await share(`${shared.hash}/query`, { body, ip: freshIp() });
        const viaKey = await client.request('POST', '/api/v1/query', { token: owner.token, body: { site_id: shared.id, ...body } });
        expect(viaShare.status, JSON.stringify(viaShare.body)).toBe(200);
        expect(viaShare.body).toEqual(viaKey.body);
      }
      // the fixture's hand-computed figures for W: visitors a, b, c; sessions S1..S4; 2 + 1 + 3 + 1 pageviews
      const aggregate = await share(`${shared.hash}/query`, { body: bodies[0], ip: freshIp() });
      expect((aggregate.body as { results: unknown[] }).results).toEqual([{ metrics: { visitors: 3, visits: 4, pageviews: 7 } }]);
      // S1 and S3 converted (visitors a and c) out of 3 visitors: 66.67 %
      const goals = await share(`${shared.hash}/query`, { body: bodies[2], ip: freshIp() });
      expect((goals.body as { results: unknown[] }).results).toEqual([
        { dimensions: { 'event:goal': 'Signup' }, metrics: { visitors: 2, conversion_rate: 66.67 } },
      ]);
    });

    it('GET /share/{hash}/props answers what GET /props answers', async () => {
      const viaShare = await share(`${shared.hash}/props?date_range=${W.join(',')}`, { ip: freshIp() });
      const viaKey = await client.request('GET', `/api/v1/props?site_id=${shared.id}&date_range=${W.join(',')}`, { token: owner.token });
      expect(viaShare.status).toBe(200);
      expect(viaShare.body).toEqual(viaKey.body);
      // `plan` on both signups
      expect(viaShare.body).toEqual({ props: [{ key: 'plan', events: 2 }], date_range: W });
    });

    it('the query language errors are the API’s', async () => {
      const bad = await share(`${shared.hash}/query`, { body: { metrics: ['sales'], date_range: W }, ip: freshIp() });
      expect([bad.status, bad.body.code]).toEqual([400, 'unknown_metric']);
      const range = await share(`${shared.hash}/props?date_range=365d`, { ip: freshIp() });
      expect([range.status, range.body.code]).toEqual([400, 'invalid_date_range']);
    });

    it('refuses a site_id in a share body, even the site’s own, and in the props query string', async () => {
      for (const siteId of [shared.id, closed.id, empty.id]) {
        const answer = await share(`${empty.hash}/query`, { body: { site_id: siteId, metrics: ['visitors'], date_range: W }, ip: freshIp() });
        expect([answer.status, answer.body.code]).toEqual([400, 'invalid_request']);
      }
      const props = await share(`${empty.hash}/props?date_range=7d&site_id=${shared.id}`, { ip: freshIp() });
      expect([props.status, props.body.code]).toEqual([400, 'invalid_request']);
    });

    it('refuses a body over the limit with 413 payload_too_large', async () => {
      const answer = await share(`${shared.hash}/query`, {
        body: { metrics: ['visitors'], date_range: W, filters: [{ field: 'page', operator: 'is', values: ['x'.repeat(70_000)] }] },
        ip: freshIp(),
      });
      expect([answer.status, answer.body.code]).toEqual([413, 'payload_too_large']);
    });

    it('a hash reaches its own site only', async () => {
      const answer = await share(`${empty.hash}/query`, { body: { metrics: ['visitors', 'pageviews'], date_range: W }, ip: freshIp() });
      expect(answer.body).toMatchObject({ results: [{ metrics: { visitors: 0, pageviews: 0 } }], query: { site_id: empty.id } });
      const props = await share(`${empty.hash}/props?date_range=${W.join(',')}`, { ip: freshIp() });
      expect(props.body).toEqual({ props: [], date_range: W });
      expect((await share(empty.hash, { ip: freshIp() })).body).toEqual({ domain: `empty-${stamp}.sightline-e2e.net`, timezone: 'UTC', goals: [] });
    });

    it('an unknown hash and a closed dashboard answer the same 404 unknown_site', async () => {
      const bodies = [];
      for (const hash of [
        UNKNOWN_HASH,
        closed.hash,
        'short',
        `${shared.hash}x`,
        'a'.repeat(64),
        'a'.repeat(65),
        'a'.repeat(200),
        '%3Cscript%3E',
        shared.hash.toLowerCase() === shared.hash ? shared.hash.toUpperCase() : shared.hash.toLowerCase(),
      ]) {
        for (const path of [hash, `${hash}/query`, `${hash}/props?date_range=7d`]) {
          const answer = await share(path, { body: path.endsWith('/query') ? { metrics: ['visitors'], date_range: W } : undefined, ip: freshIp() });
          expect(answer.status, path).toBe(404);
          const { request_id: requestId, ...rest } = answer.body;
          expect(requestId).toEqual(expect.any(String));
          bodies.push(JSON.stringify(rest));
        }
      }
      expect(new Set(bodies)).toEqual(new Set([JSON.stringify({ code: 'unknown_site', error: 'No public dashboard at this address.' })]));
    });

    it('turning the public dashboard off closes the hash: API and page answer the unknown hash’s 404', async () => {
      const unknownApi = await share(UNKNOWN_HASH, { ip: freshIp() });
      const unknownPage = await page(`/share/${UNKNOWN_HASH}`);
      const unknownPageText = await unknownPage.text();
      expect((await share(empty.hash, { ip: freshIp() })).status).toBe(200);
      expect((await page(`/share/${empty.hash}`)).status).toBe(200);
      await setPublic(empty.id, false);
      await waitFor(async () => (await share(empty.hash, { ip: freshIp() })).status === 404, 10_000);
      const closedApi = await share(`${empty.hash}/query`, { body: { metrics: ['visitors'], date_range: W }, ip: freshIp() });
      expect({ ...closedApi.body, request_id: '' }).toEqual({ ...unknownApi.body, request_id: '' });
      const closedPage = await page(`/share/${empty.hash}`);
      expect(closedPage.status).toBe(404);
      expect(await closedPage.text()).toBe(unknownPageText);
      for (const header of ['content-type', 'cache-control', 'content-security-policy', 'x-frame-options', 'content-length']) {
        expect(closedPage.headers.get(header), header).toBe(unknownPage.headers.get(header));
      }
      await setPublic(empty.id, true);
      await waitFor(async () => (await share(empty.hash, { ip: freshIp() })).status === 200, 10_000);
    });

    it('rate limits each client address: 429 rate_limited with Retry-After, other addresses unaffected', async () => {
      const ip = freshIp();
      for (let i = 0; i < RATE_LIMIT; i += 1) expect((await share(empty.hash, { ip })).status).toBe(200);
      const limited = await share(`${empty.hash}/query`, { body: { metrics: ['visitors'], date_range: W }, ip });
      expect([limited.status, limited.body.code]).toEqual([429, 'rate_limited']);
      // one request every 60/30 = 2 s, less what refilled while the 30 ran (whole seconds, at least 1)
      expect(['1', '2']).toContain(limited.headers.get('retry-after'));
      // unknown hashes and the share page count too: guessing is bounded the same way
      expect((await share(UNKNOWN_HASH, { ip })).status).toBe(429);
      expect((await page(`/share/${empty.hash}`, { 'x-forwarded-for': ip })).status).toBe(429);
      expect((await share(empty.hash, { ip: freshIp() })).status).toBe(200);
      // the API key routes are not limited by it
      expect((await client.withIp(ip).request('GET', `/api/v1/sites/${empty.id}`, { token: owner.token })).status).toBe(200);
    });

    it('is described in the OpenAPI document', async () => {
      const text = await (await fetch(`${sightline.url}/api/v1/openapi.yaml`)).text();
      for (const path of ['/share/{hash}:', '/share/{hash}/query:', '/share/{hash}/props:']) expect(text).toContain(`  ${path}`);
    });
  });

  describe('pages', () => {
    const shell = (boot: string, title = 'Sightline') =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><link rel="stylesheet" href="/${dist.css}"><script type="module" src="/${dist.entry}"></script></head><body><script type="application/json" id="sightline-boot">${boot}</script><div id="app"></div></body></html>`;

    /** the page's text with its inline icon (a data: SVG, checked present) taken out */
    const withoutIcon = (html: string) => {
      expect(html).toMatch(/<meta name="viewport" content="[^"]*"><link rel="icon" href="data:image\/svg\+xml,[^"]*"><title>/);
      return html.replace(/<link rel="icon" href="data:[^"]*">/, '');
    };

    const expectPageHeaders = (response: Response, embed: boolean) => {
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toBe(CSP + (embed ? '*' : "'none'"));
      expect(response.headers.get('x-frame-options')).toBe(embed ? null : 'DENY');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    };

    it('/, /sites/{id} and /share/{hash} answer the shell with their boot data', async () => {
      const home = await page('/');
      expect(home.status).toBe(200);
      expectPageHeaders(home, false);
      expect(withoutIcon(await home.text())).toBe(shell('{"page":"home","embed":false,"theme":"system"}'));
      const site = await page('/sites/42');
      expectPageHeaders(site, false);
      expect(withoutIcon(await site.text())).toBe(shell('{"page":"site","site_id":42,"embed":false,"theme":"system"}'));
      const sharePage = await page(`/share/${shared.hash}`);
      expectPageHeaders(sharePage, false);
      expect(withoutIcon(await sharePage.text())).toBe(
        shell(`{"page":"share","share_hash":"${shared.hash}","embed":false,"theme":"system"}`, `shared-${stamp}.sightline-e2e.net · Sightline`),
      );
    });

    it('embed mode alone may be framed; the theme is one of three', async () => {
      const embedded = await page(`/share/${shared.hash}?embed=true&theme=dark`);
      expectPageHeaders(embedded, true);
      expect(await embedded.text()).toContain(`{"page":"share","share_hash":"${shared.hash}","embed":true,"theme":"dark"}`);
      // anything but embed=true is not embed; anything but one of the three themes is system (a repeated parameter too)
      const cases: Array<[string, string]> = [
        ['?embed=false&theme=light', 'light'],
        ['?embed=1', 'system'],
        ['?theme=%3Cscript%3E', 'system'],
        [`?theme=${'x'.repeat(500)}`, 'system'],
        ['?theme=dark&theme=light', 'system'],
        ['?embed=true&embed=true', 'system'],
        ['?embed', 'system'],
      ];
      for (const [query, theme] of cases) {
        const framed = await page(`/share/${shared.hash}${query}`);
        expect(framed.status, query).toBe(200);
        expectPageHeaders(framed, false);
        expect(await framed.text(), query).toContain(`{"page":"share","share_hash":"${shared.hash}","embed":false,"theme":"${theme}"}`);
      }
      // embed is a share-page mode: the signed-in pages never drop their frame protection
      expectPageHeaders(await page('/sites/42?embed=true'), false);
      expectPageHeaders(await page('/?embed=true'), false);
    });

    it('one byte-identical 404 page for an unknown hash, a closed dashboard and a malformed address', async () => {
      const texts = new Set<string>();
      for (const path of [
        `/share/${UNKNOWN_HASH}`,
        `/share/${closed.hash}`,
        `/share/${closed.hash}?embed=true`,
        '/share/%3Cscript%3E',
        `/share/${'a'.repeat(200)}`,
        '/sites/abc',
        '/sites/0',
        '/sites/1e3',
        `/sites/${'9'.repeat(40)}`,
        '/sites/-1',
      ]) {
        const response = await page(path);
        expect(response.status, path).toBe(404);
        expectPageHeaders(response, false);
        texts.add(await response.text());
      }
      expect(texts.size).toBe(1);
      expect([...texts][0]).toMatch(/^<!doctype html>.*Not found/);
    });

    it('HEAD answers the headers without a body', async () => {
      const head = await fetch(`${sightline.url}/share/${shared.hash}`, { method: 'HEAD', headers: { 'x-forwarded-for': freshIp() } });
      expect(head.status).toBe(200);
      expectPageHeaders(head, false);
      expect(await head.text()).toBe('');
      const asset = await fetch(`${sightline.url}/${dist.entry}`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
      expect([asset.status, asset.headers.get('content-encoding'), await asset.text()]).toEqual([200, 'gzip', '']);
    });
  });

  describe('assets', () => {
    const asset = (path: string, acceptEncoding?: string) =>
      rawRequest(sightline.url!, { method: 'GET', path, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });
    /** the bytes as sent (fetch would decode them) */
    const wire = (path: string, acceptEncoding: string | undefined) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const url = new URL(sightline.url!);
        http
          .get({ host: url.hostname, port: url.port, path, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });

    it('serves the precompressed sibling the client accepts, immutable, varying by Accept-Encoding', async () => {
      const cases: Array<[string | undefined, string | undefined]> = [
        ['br, gzip, deflate', 'br'],
        ['gzip, deflate, br;q=0', 'gzip'],
        ['gzip', 'gzip'],
        ['*', 'br'],
        ['*, br;q=0', 'gzip'],
        ['identity', undefined],
        ['br;q=0, gzip;q=0', undefined],
        [undefined, undefined],
      ];
      for (const [accept, encoding] of cases) {
        const response = await wire(`/${dist.entry}`, accept);
        expect(response.status, String(accept)).toBe(200);
        expect(response.headers['content-encoding'], String(accept)).toBe(encoding);
        expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(response.headers.vary).toBe('Accept-Encoding');
        expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
        const decoded = encoding === 'br' ? brotliDecompressSync(response.body) : encoding === 'gzip' ? gunzipSync(response.body) : response.body;
        expect(decoded.equals(dist.files[dist.entry]!), String(accept)).toBe(true);
        // precompressed bytes are smaller than the file: never the identity bytes relabelled
        if (encoding) expect(response.body.length).toBeLessThan(dist.files[dist.entry]!.length);
      }
      const css = await wire(`/${dist.css}`, 'gzip');
      expect([css.status, css.headers['content-type'], gunzipSync(css.body).toString()]).toEqual([
        200,
        'text/css; charset=utf-8',
        dist.files[dist.css]!.toString(),
      ]);
      // a file built without siblings goes out as it is
      const svg = await asset('/assets/flag.1a2b3c4d.svg', 'br, gzip');
      expect([svg.status, svg.headers['content-encoding'], svg.headers['content-type'], svg.text]).toEqual([
        200,
        undefined,
        'image/svg+xml',
        dist.files['assets/flag.1a2b3c4d.svg']!.toString(),
      ]);
    });

    it('serves only what the manifest lists: unknown files and traversal answer 404', async () => {
      for (const path of [
        '/assets/app.0000.js',
        '/assets/unlisted.js',
        `/${dist.entry}.br`,
        `/${dist.entry}.gz`,
        '/assets/../manifest.json',
        '/assets/..%2fmanifest.json',
        '/assets/%2e%2e/secret.txt',
        '/assets/%2e%2e%2fsecret.txt',
        '/assets//etc/passwd',
        '/assets/',
        '/assets/..\\secret.txt',
        '/manifest.json',
        '/secret.txt',
      ]) {
        const answer = await asset(path, 'br, gzip');
        expect(answer.status, path).toBe(404);
        expect(answer.text, path).not.toContain('not an asset');
        expect(answer.text, path).not.toContain('"entry"');
      }
    });
  });

  // last: it closes the account's reports for good
  describe('plan gates', () => {
    it('answers 403 plan_expired after the trial and 403 tracking_inactive once lapsed, like POST /query; the page still opens', async () => {
      const sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
      try {
        const routes = () =>
          Promise.all([
            share(shared.hash, { ip: freshIp() }),
            share(`${shared.hash}/query`, { body: { metrics: ['visitors'], date_range: W }, ip: freshIp() }),
            share(`${shared.hash}/props?date_range=7d`, { ip: freshIp() }),
          ]);
        // trial over 3 days ago: reports closed, tracking still in its grace period (this database holds one account)
        await sql.query("UPDATE identity.accounts SET trial_started_at = now() - interval '33 days', trial_ends_at = now() - interval '3 days'");
        expect((await routes()).map((a) => `${a.status} ${String(a.body.code)}`)).toEqual(Array(3).fill('403 plan_expired'));
        await sql.query("UPDATE identity.accounts SET trial_started_at = now() - interval '60 days', trial_ends_at = now() - interval '30 days'");
        expect((await routes()).map((a) => `${a.status} ${String(a.body.code)}`)).toEqual(Array(3).fill('403 tracking_inactive'));
        // the page is the shell: its panels show the refusal
        expect((await page(`/share/${shared.hash}`)).status).toBe(200);
      } finally {
        await sql.end();
      }
    });
  });
});
