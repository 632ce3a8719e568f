import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, codeFromMail, freshIp, register, type ApiAnswer } from './test-support/api-client.js';

// The dashboard's browser session over HTTP, as a browser speaks it: the whole service in
// this process (PGlite, chDB), codes read from a real SMTP sink, cookies carried by hand
// exactly as a browser would (the Set-Cookie value sent back as Cookie).
const DAY_MS = 86_400_000;
const THIRTY_DAYS_S = 30 * 86_400;

interface Browser {
  client: ApiClient;
  cookie?: string;
  csrf?: string;
}

describe('dashboard web session over HTTP', () => {
  let server: E2eServer;
  let clockOffsetMs = 0;
  const email = (name: string) => `${name}.${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}@mail.sightline-e2e.net`;

  beforeAll(async () => {
    server = await startE2eServer({ clock: () => new Date(Date.now() + clockOffsetMs) });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const newBrowser = (): Browser => ({ client: server.api.withIp(freshIp()) });

  async function mailCode(browser: Browser, address: string): Promise<string> {
    const before = server.smtp.received.length;
    const sent = await browser.client.request('POST', '/api/v1/auth/send-otp', { body: { email: address } });
    expect(sent.status).toBe(200);
    return codeFromMail(server.smtp, address, before);
  }

  /** POST /web/session; on success the browser keeps the cookie and the CSRF token. */
  async function startSession(browser: Browser, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const answer = await browser.client.request<{ email: string; created: boolean; csrf_token: string; expires_at: string; code?: string }>(
      'POST',
      '/web/session',
      { body, headers },
    );
    if (answer.status === 200) {
      browser.cookie = cookieValue(answer);
      browser.csrf = answer.body.csrf_token;
    }
    return answer;
  }

  /** a browser signed in to `address`; a minute later by the services' clock unless told (2 codes per address per minute) */
  async function signIn(address: string, options: { laterClock?: boolean } = {}): Promise<Browser> {
    if (options.laterClock !== false) clockOffsetMs += 61_000;
    const browser = newBrowser();
    const code = await mailCode(browser, address);
    const answer = await startSession(browser, { email: address, code });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return browser;
  }

  /** A request as the dashboard page sends it: the cookie, and the CSRF header unless told otherwise. */
  function asPage<T = Record<string, unknown>>(
    browser: Browser,
    method: string,
    path: string,
    options: { body?: unknown; csrf?: string | null; cookie?: string | null } = {},
  ) {
    const headers: Record<string, string> = {};
    const cookie = options.cookie === undefined ? browser.cookie : options.cookie;
    if (cookie) headers.cookie = `theme=dark; sightline_session=${cookie}`;
    const csrf = options.csrf === undefined ? browser.csrf : options.csrf;
    if (csrf) headers['x-csrf-token'] = csrf;
    return browser.client.request<T>(method, path, { body: options.body, headers });
  }

  async function ownerWithSite(host: string) {
    const client = server.api.withIp(freshIp());
    const address = email('owner');
    const owner = await register(client, server.smtp, address);
    const site = await client.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${host}-${Date.now().toString(36)}.sightline-e2e.net` },
    });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    return { client, address, token: owner.token, siteId: site.body.site_id };
  }

  describe('sign-in', () => {
    it('a new address must accept the terms: 400 terms_not_accepted creates nothing and keeps the code; then 200, the cookie and no API key', async () => {
      const browser = newBrowser();
      const address = email('new');
      const code = await mailCode(browser, address);
      const refused = await startSession(browser, { email: address, code });
      expect([refused.status, refused.body.code]).toEqual([400, 'terms_not_accepted']);
      expect(refused.headers.get('set-cookie')).toBeNull();

      const started = await startSession(browser, { email: address, code, accept_terms: true });
      expect(started.status).toBe(200);
      expect(Object.keys(started.body).sort()).toEqual(['created', 'csrf_token', 'email', 'expires_at']);
      expect(started.body).toMatchObject({ email: address, created: true });
      expect(started.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Math.abs(Date.parse(started.body.expires_at) - (Date.now() + 30 * DAY_MS))).toBeLessThan(60_000);
      expect(started.headers.get('cache-control')).toBe('no-store');
      // nothing in the body is the session's secret or an API key
      expect(JSON.stringify(started.body)).not.toContain(browser.cookie!);
      expect(JSON.stringify(started.body)).not.toMatch(/sls?_[0-9A-Za-z]{20}/);
      // the session can read the (empty) site list of its brand-new account
      const sites = await asPage(browser, 'GET', '/api/v1/sites');
      expect([sites.status, sites.body]).toEqual([200, { sites: [] }]);
    });

    it('an existing account signs in without accept_terms (created false)', async () => {
      const address = email('known');
      await register(server.api.withIp(freshIp()), server.smtp, address);
      const browser = newBrowser();
      const code = await mailCode(browser, address);
      const started = await startSession(browser, { email: address, code });
      expect([started.status, started.body.created, started.body.email]).toEqual([200, false, address]);
      const current = await asPage(browser, 'GET', '/web/session', { csrf: null });
      expect([current.status, current.body]).toEqual([200, { email: address, csrf_token: browser.csrf, expires_at: started.body.expires_at }]);
    });

    it('a wrong code answers 401 otp_invalid; an expired code too; a malformed body 400 invalid_request', async () => {
      const address = email('wrong');
      const browser = newBrowser();
      const code = await mailCode(browser, address);
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      const answer = await startSession(browser, { email: address, code: wrong, accept_terms: true });
      expect([answer.status, answer.body.code]).toEqual([401, 'otp_invalid']);
      expect(answer.headers.get('set-cookie')).toBeNull();

      const late = newBrowser();
      const lateAddress = email('late');
      const lateCode = await mailCode(late, lateAddress);
      clockOffsetMs += 10 * 60_000 + 1_000; // the code lived 10 minutes
      const expired = await startSession(late, { email: lateAddress, code: lateCode, accept_terms: true });
      expect([expired.status, expired.body.code]).toEqual([401, 'otp_invalid']);
      for (const body of [
        { email: address },
        { email: address, code: 123456 },
        { email: 'x'.repeat(321), code: '123456' },
        { email: address, code: '1'.repeat(21) },
      ]) {
        const bad = await startSession(newBrowser(), body);
        expect([bad.status, bad.body.code], JSON.stringify(body).slice(0, 60)).toEqual([400, 'invalid_request']);
      }
    });

    it('takes only a JSON body: a cross-site form (text/plain, urlencoded) cannot sign a browser in', async () => {
      const address = email('form');
      const browser = newBrowser();
      const code = await mailCode(browser, address);
      for (const [type, body] of [
        ['text/plain', JSON.stringify({ email: address, code, accept_terms: true })],
        ['application/x-www-form-urlencoded', `email=${encodeURIComponent(address)}&code=${code}&accept_terms=true`],
      ]) {
        const response = await fetch(`${server.sightline.url}/web/session`, {
          method: 'POST',
          headers: { 'content-type': type!, 'x-forwarded-for': freshIp() },
          body,
        });
        // text/plain arrives as a string, not an object; a form encoding has no parser: both 400 invalid_request
        expect([response.status, ((await response.json()) as { code: string }).code], type).toEqual([400, 'invalid_request']);
        expect(response.headers.get('set-cookie')).toBeNull();
      }
      // the code was not touched
      expect((await startSession(browser, { email: address, code, accept_terms: true })).status).toBe(200);
    });

    it('sets the cookie HttpOnly, SameSite=Lax, Path=/, for 30 days; Secure only when a trusted proxy says https', async () => {
      const address = email('cookie');
      // (two codes for one address within a minute: the limit's most)
      const { cookie: plain, expiresAt } = await signInRaw(address, {});
      expect(plain).toMatch(/^sightline_session=sls_[0-9A-Za-z]{49}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
      // the cookie lives as long as the session: 30 days from sign-in (by the services' clock, moved by earlier tests)
      expect(Math.abs(Number(/Max-Age=(\d+)/.exec(plain)![1]) - (Date.parse(expiresAt) - Date.now()) / 1000)).toBeLessThanOrEqual(5);
      expect(Math.abs(Date.parse(expiresAt) - (Date.now() + clockOffsetMs) - THIRTY_DAYS_S * 1000)).toBeLessThanOrEqual(5_000);
      // 127.0.0.1 is a trusted proxy of this server (TRUSTED_PROXIES), so its X-Forwarded-Proto counts
      const { cookie: secure } = await signInRaw(address, { 'x-forwarded-proto': 'https' });
      expect(secure).toMatch(/^sightline_session=sls_[0-9A-Za-z]{49}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    });

    async function signInRaw(address: string, headers: Record<string, string>): Promise<{ cookie: string; expiresAt: string }> {
      const browser = newBrowser();
      const code = await mailCode(browser, address);
      const answer = await startSession(browser, { email: address, code, accept_terms: true }, headers);
      expect(answer.status).toBe(200);
      return { cookie: answer.headers.get('set-cookie')!, expiresAt: answer.body.expires_at };
    }
  });

  describe('reading with the session', () => {
    it('reads the account’s sites, a site, its goals, queries and props — only with the CSRF header', async () => {
      const owner = await ownerWithSite('reads');
      const browser = await signIn(owner.address);
      const sites = await asPage<{ sites: Array<{ site_id: number; role: string }> }>(browser, 'GET', '/api/v1/sites');
      expect(sites.status).toBe(200);
      expect(sites.body.sites.map((s) => [s.site_id, s.role])).toEqual([[owner.siteId, 'owner']]);
      expect((await asPage(browser, 'GET', `/api/v1/sites/${owner.siteId}`)).body).toMatchObject({ site_id: owner.siteId, role: 'owner' });
      expect(await asPage(browser, 'GET', `/api/v1/sites/${owner.siteId}/goals`)).toMatchObject({ status: 200, body: { goals: [] } });
      const query = await asPage<{ results: Array<{ metrics: Record<string, number> }> }>(browser, 'POST', '/api/v1/query', {
        body: { site_id: owner.siteId, metrics: ['visitors', 'pageviews'], date_range: '7d' },
      });
      expect([query.status, query.body.results]).toEqual([200, [{ metrics: { visitors: 0, pageviews: 0 } }]]);
      // the same answer as the owner's API key gets
      const byKey = await owner.client.request('POST', '/api/v1/query', {
        token: owner.token,
        body: { site_id: owner.siteId, metrics: ['visitors', 'pageviews'], date_range: '7d' },
      });
      expect(query.body).toEqual(byKey.body);
      const props = await asPage(browser, 'GET', `/api/v1/props?site_id=${owner.siteId}&date_range=7d`);
      expect(props.status, JSON.stringify(props.body)).toBe(200);

      // the cookie without the header, with a wrong one, or with another session's, is no credential
      const other = await signIn(owner.address);
      for (const csrf of [null, '', 'x'.repeat(43), other.csrf!, browser.csrf!.toUpperCase(), 'x'.repeat(5000)]) {
        for (const [method, path, body] of [
          ['GET', '/api/v1/sites'],
          ['POST', '/api/v1/query', { site_id: owner.siteId, metrics: ['visitors'] }],
        ] as const) {
          const refused = await asPage(browser, method, path, { csrf, body });
          expect([refused.status, refused.body.code], `${method} ${path} csrf=${String(csrf).slice(0, 10)}`).toEqual([401, 'unauthorized']);
        }
      }
      // the CSRF token alone is nothing either
      expect((await asPage(browser, 'GET', '/api/v1/sites', { cookie: null })).status).toBe(401);
      // a session token is not an API key
      expect((await owner.client.request('GET', '/api/v1/sites', { token: browser.cookie })).status).toBe(401);
      // a bearer key, when present, wins over the cookie
      const withBoth = await browser.client.request('GET', '/api/v1/sites', {
        token: 'sl_not-a-real-key',
        headers: { cookie: `sightline_session=${browser.cookie}`, 'x-csrf-token': browser.csrf! },
      });
      expect(withBoth.status).toBe(401);
    });

    it('a site it is not a member of is 404 unknown_site, like a missing one', async () => {
      const mine = await ownerWithSite('mine');
      const theirs = await ownerWithSite('theirs');
      const browser = await signIn(mine.address);
      const answers = [
        await asPage(browser, 'GET', `/api/v1/sites/${theirs.siteId}`),
        await asPage(browser, 'GET', `/api/v1/sites/${theirs.siteId}/goals`),
        await asPage(browser, 'POST', '/api/v1/query', { body: { site_id: theirs.siteId, metrics: ['visitors'], date_range: '7d' } }),
        await asPage(browser, 'GET', `/api/v1/props?site_id=${theirs.siteId}&date_range=7d`),
        await asPage(browser, 'GET', '/api/v1/sites/999999999'),
      ];
      expect(answers.map((a) => [a.status, a.body.code])).toEqual(Array(5).fill([404, 'unknown_site']));
      expect(answers[0]!.body.error).toBe(answers[4]!.body.error);
    });

    it('cannot write or manage: routes that do not take a session answer 401 unauthorized', async () => {
      const owner = await ownerWithSite('nowrite');
      const browser = await signIn(owner.address);
      const attempts = [
        await asPage(browser, 'POST', '/api/v1/sites', { body: { url: 'https://session-write.sightline-e2e.net' } }),
        await asPage(browser, 'PATCH', `/api/v1/sites/${owner.siteId}`, { body: { timezone: 'UTC' } }),
        await asPage(browser, 'DELETE', `/api/v1/sites/${owner.siteId}`),
        await asPage(browser, 'POST', `/api/v1/sites/${owner.siteId}/goals`, { body: { event_name: 'Signup' } }),
        await asPage(browser, 'GET', '/api/v1/keys'),
        await asPage(browser, 'GET', `/api/v1/sites/${owner.siteId}/members`),
        await asPage(browser, 'GET', `/api/v1/sites/${owner.siteId}/settings/public-dashboard`),
      ];
      expect(attempts.map((a) => [a.status, a.body.code])).toEqual(Array(attempts.length).fill([401, 'unauthorized']));
      expect((await owner.client.request('GET', `/api/v1/sites/${owner.siteId}`, { token: owner.token })).status).toBe(200);
    });

    it('a removed member loses access at once', async () => {
      const owner = await ownerWithSite('members');
      const memberAddress = email('member');
      await register(server.api.withIp(freshIp()), server.smtp, memberAddress);
      const added = await owner.client.request<{ account_id: number }>('POST', `/api/v1/sites/${owner.siteId}/members`, {
        token: owner.token,
        body: { email: memberAddress, role: 'member' },
      });
      expect(added.status).toBe(201);
      const member = await signIn(memberAddress);
      const queryBody = { site_id: owner.siteId, metrics: ['visitors'], date_range: '7d' };
      expect((await asPage(member, 'GET', `/api/v1/sites/${owner.siteId}`)).body).toMatchObject({ role: 'member' });
      expect((await asPage(member, 'POST', '/api/v1/query', { body: queryBody })).status).toBe(200);

      expect((await owner.client.request('DELETE', `/api/v1/sites/${owner.siteId}/members/${added.body.account_id}`, { token: owner.token })).status).toBe(204);
      const after = [await asPage(member, 'GET', `/api/v1/sites/${owner.siteId}`), await asPage(member, 'POST', '/api/v1/query', { body: queryBody })];
      expect(after.map((a) => [a.status, a.body.code])).toEqual([
        [404, 'unknown_site'],
        [404, 'unknown_site'],
      ]);
      expect((await asPage<{ sites: unknown[] }>(member, 'GET', '/api/v1/sites')).body.sites).toEqual([]);
    });
  });

  it('documents the session routes, and the session as a credential of exactly the dashboard’s reads', async () => {
    type Operation = { security?: Array<Record<string, string[]>> };
    const document = parseYaml(await (await fetch(`${server.sightline.url}/api/v1/openapi.yaml`)).text()) as {
      paths: Record<string, Record<string, Operation> & { servers?: unknown }>;
    };
    expect(
      Object.keys(document.paths['/web/session']!)
        .filter((k) => k !== 'servers')
        .sort(),
    ).toEqual(['delete', 'get', 'post']);
    expect(document.paths['/web/sessions']!.delete).toBeDefined();
    const sessionReads: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if ((operation as Operation).security?.some((s) => 'webSession' in s && 'csrfToken' in s && !('apiKey' in s)) && !path.startsWith('/web/'))
          sessionReads.push(`${method.toUpperCase()} ${path}`);
      }
    }
    // and the annotations, the one place a session also writes (the site role decides)
    expect(sessionReads.sort()).toEqual([
      'DELETE /sites/{id}/annotations/{annotation_id}',
      'GET /props',
      'GET /sites',
      'GET /sites/{id}',
      'GET /sites/{id}/annotations',
      'GET /sites/{id}/annotations/export',
      'GET /sites/{id}/export',
      'GET /sites/{id}/funnels',
      'GET /sites/{id}/funnels/{funnel_id}/report',
      'GET /sites/{id}/goals',
      'PATCH /sites/{id}/annotations/{annotation_id}',
      'POST /query',
      'POST /sites/{id}/annotations',
    ]);
    // either credential, each stated once
    expect(document.paths['/sites']!.get!.security).toEqual([{ apiKey: [] }, { webSession: [], csrfToken: [] }]);
    expect(document.paths['/sites']!.post!.security).toEqual([{ apiKey: [] }]);
  });

  describe('sign-out and expiry', () => {
    it('sign-out needs the CSRF header, then revokes at once and clears the cookie', async () => {
      const owner = await ownerWithSite('signout');
      const browser = await signIn(owner.address);
      const keep = await signIn(owner.address);
      expect((await asPage(browser, 'GET', '/api/v1/sites')).status).toBe(200); // now cached by the gateway
      for (const csrf of [null, keep.csrf!]) {
        const refused = await asPage(browser, 'DELETE', '/web/session', { csrf });
        expect([refused.status, refused.body.code]).toEqual([401, 'unauthorized']);
      }
      expect((await asPage(browser, 'GET', '/api/v1/sites')).status).toBe(200);

      const out = await asPage(browser, 'DELETE', '/web/session');
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toBe('sightline_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
      // within the key cache's TTL: the revocation, not the TTL, ends it
      expect((await asPage(browser, 'GET', '/api/v1/sites')).status).toBe(401);
      const current = await asPage(browser, 'GET', '/web/session', { csrf: null });
      expect([current.status, current.body.code]).toEqual([401, 'unauthorized']);
      expect(current.headers.get('set-cookie')).toBe('sightline_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
      expect((await asPage(browser, 'DELETE', '/web/session')).status).toBe(401);
      // the account's other session is untouched
      expect((await asPage(keep, 'GET', '/api/v1/sites')).status).toBe(200);
    });

    it('sign out everywhere revokes every session of the account (API keys stay)', async () => {
      const owner = await ownerWithSite('everywhere');
      const here = await signIn(owner.address);
      const phone = await signIn(owner.address);
      const laptop = await signIn(owner.address);
      for (const b of [here, phone, laptop]) expect((await asPage(b, 'GET', '/api/v1/sites')).status).toBe(200);
      expect((await asPage(here, 'DELETE', '/web/sessions', { csrf: null })).status).toBe(401);
      const out = await asPage(here, 'DELETE', '/web/sessions');
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(/^sightline_session=; Max-Age=0;/);
      for (const b of [here, phone, laptop]) expect((await asPage(b, 'GET', '/api/v1/sites')).status).toBe(401);
      expect((await owner.client.request('GET', '/api/v1/sites', { token: owner.token })).status).toBe(200);
    });

    it('an expired session is refused, however recently it was cached', async () => {
      const owner = await ownerWithSite('expiry');
      // signed in "30 days minus 3 s ago" by the services' clock: it ends 3 s from now
      const offset = clockOffsetMs;
      clockOffsetMs = -(30 * DAY_MS - 3_000);
      let browser: Browser;
      try {
        browser = await signIn(owner.address, { laterClock: false });
      } finally {
        clockOffsetMs = offset;
      }
      expect((await asPage(browser, 'GET', '/api/v1/sites')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 3_200));
      const refused = await asPage(browser, 'GET', '/api/v1/sites');
      expect([refused.status, refused.body.code]).toEqual([401, 'unauthorized']);
      expect((await asPage(browser, 'GET', '/web/session', { csrf: null })).status).toBe(401);
    });
  });
});

/** The cookie's value from Set-Cookie, as a browser stores it. */
function cookieValue(answer: ApiAnswer<unknown>): string {
  const header = answer.headers.get('set-cookie') ?? '';
  const value = /^sightline_session=([^;]*)/.exec(header)?.[1];
  if (!value) throw new Error(`no session cookie in ${header}`);
  return value;
}
