import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '@sightline/mailer/testing';
import { backendGate, type TestDatabase } from '@sightline/testkit';
import type { RunningSightline } from './start-sightline.js';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, codeFromMail, freshIp, register } from './test-support/api-client.js';
import { mintKey } from './test-support/admin-cli.js';

// Registration and keys through HTTP against the started server, on real
// PostgreSQL and a real SMTP server, with the services' clock movable.
const pgGate = await backendGate('postgres');

describe.skipIf(!pgGate.available)('identity over HTTP', () => {
  let database: TestDatabase;
  let server: E2eServer;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let api: ApiClient;
  let clockOffsetMs = 0;
  const email = (name: string) => `${name}.${Date.now().toString(36)}@mail.sightline-e2e.net`;

  beforeAll(async () => {
    server = await startE2eServer({
      postgres: { url: pgGate.url, databaseName: 'sightline_identity_e2e' },
      env: { KEYS_PER_ACCOUNT: '4' },
      clock: () => new Date(Date.now() + clockOffsetMs),
    });
    ({ sightline, api, smtp } = server);
    database = server.database!;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  describe('send-otp', () => {
    it('answers the same for a new and an existing address, and mails the code only', async () => {
      const client = api.withIp(freshIp());
      const existing = email('existing');
      await register(client, smtp, existing);
      const fresh = email('fresh');
      const a = await client.request('POST', '/api/v1/auth/send-otp', { body: { email: fresh } });
      const b = await api.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: existing } });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(a.body).toEqual({ sent: true, email: fresh });
      expect(b.body).toEqual({ sent: true, email: existing });
      expect(JSON.stringify(a.body)).not.toMatch(/\d{6}/);
      expect(await codeFromMail(smtp, fresh)).toMatch(/^\d{6}$/);
    });

    it.each([
      ['someone@example.com', 'email_undeliverable'],
      ['someone@mail.example.org', 'email_undeliverable'],
      ['someone@host.test', 'email_undeliverable'],
      ['someone@host.localhost', 'email_undeliverable'],
      ['тест@mail.com', 'email_undeliverable'],
      ['someone@mail.ru', 'domain_not_allowed'],
      ['someone@пример.рф', 'domain_not_allowed'],
      ['someone@xn--e1afmkfd.xn--p1ai', 'domain_not_allowed'],
      ['someone@site.by', 'domain_not_allowed'],
      ['not-an-address', 'invalid_request'],
    ])('refuses %s with 400 %s before any mail', async (address, code) => {
      const before = smtp.received.length;
      const answer = await api.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(code);
      if (code === 'domain_not_allowed') expect(answer.body.error).toContain('.рф');
      expect(smtp.received.length).toBe(before);
    });

    it('limits codes per address to 2 a minute, with Retry-After', async () => {
      const address = email('twice');
      for (const _ of [1, 2]) expect((await api.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } })).status).toBe(200);
      const third = await api.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } });
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('rate_limited');
      const retryAfter = Number(third.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });

    it('limits codes per IP to 5 an hour', async () => {
      const client = api.withIp(freshIp());
      for (let i = 0; i < 5; i += 1) expect((await client.request('POST', '/api/v1/auth/send-otp', { body: { email: email(`ip${i}`) } })).status).toBe(200);
      const sixth = await client.request('POST', '/api/v1/auth/send-otp', { body: { email: email('ip6') } });
      expect(sixth.status).toBe(429);
      expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(60);
    });

    it('limits requests per IP across both registration routes to 20 an hour', async () => {
      const client = api.withIp(freshIp());
      for (let i = 0; i < 20; i += 1) {
        const answer = await client.request('POST', '/api/v1/auth/verify-otp', {
          body: { email: email('x'), code: '000000', accept_terms: true, key_name: 'k' },
        });
        expect(answer.status).toBe(401);
      }
      const over = await client.request('POST', '/api/v1/auth/send-otp', { body: { email: email('y') } });
      expect(over.status).toBe(429);
      expect(over.body.code).toBe('rate_limited');
    });
  });

  describe('verify-otp', () => {
    async function codeFor(address: string): Promise<string> {
      const before = smtp.received.length;
      expect((await api.withIp(freshIp()).request('POST', '/api/v1/auth/send-otp', { body: { email: address } })).status).toBe(200);
      return codeFromMail(smtp, address, before);
    }

    it('issues a key covering every site, expiring in 90 days, without billing:write', async () => {
      const address = email('first');
      const code = await codeFor(address);
      const answer = await api.withIp(freshIp()).request<{ token: string; created: boolean; key: Record<string, unknown> }>('POST', '/api/v1/auth/verify-otp', {
        body: { email: address, code, accept_terms: true, key_name: 'ci' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.created).toBe(true);
      expect(answer.body.token).toMatch(/^sl_[A-Za-z0-9]{40,}$/);
      expect(answer.body.key).toMatchObject({ name: 'ci', site_id: null, permissions: ['stats:read', 'sites:write', 'keys:write'], expired: false });
      const days = (Date.parse(answer.body.key.expires_at as string) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(89.9);
      expect(days).toBeLessThan(90.1);
      const again = await api
        .withIp(freshIp())
        .request('POST', '/api/v1/auth/verify-otp', { body: { email: address, code, accept_terms: true, key_name: 'ci' } });
      expect(again.status).toBe(401);
      expect(again.body.code).toBe('otp_invalid');
    });

    it('refuses without accepted terms and creates nothing; the code still works after', async () => {
      const address = email('terms');
      const code = await codeFor(address);
      for (const accept of [false, undefined]) {
        const answer = await api
          .withIp(freshIp())
          .request('POST', '/api/v1/auth/verify-otp', { body: { email: address, code, accept_terms: accept, key_name: 'k' } });
        expect(answer.status).toBe(400);
        expect(answer.body.code).toBe('terms_not_accepted');
      }
      const ok = await api.withIp(freshIp()).request('POST', '/api/v1/auth/verify-otp', { body: { email: address, code, accept_terms: true, key_name: 'k' } });
      expect(ok.status).toBe(200);
      expect(ok.body.created).toBe(true);
    });

    it.each([
      [{ expires_in_days: 0 }, 'invalid_expiry'],
      [{ expires_in_days: 366 }, 'invalid_expiry'],
      [{ permissions: ['billing:write'] }, 'invalid_scope'],
      [{ permissions: ['stats:read', 'billing:write'] }, 'invalid_scope'],
      [{ permissions: ['sites:delete'] }, 'invalid_scope'],
    ])('refuses %o with 400 %s', async (extra, code) => {
      const address = email('rules');
      const answer = await api
        .withIp(freshIp())
        .request('POST', '/api/v1/auth/verify-otp', { body: { email: address, code: await codeFor(address), accept_terms: true, key_name: 'k', ...extra } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(code);
    });

    it('answers otp_invalid for a wrong code and for an expired one', async () => {
      const address = email('wrong');
      const code = await codeFor(address);
      const wrong = code === '000000' ? '111111' : '000000';
      expect(
        (await api.withIp(freshIp()).request('POST', '/api/v1/auth/verify-otp', { body: { email: address, code: wrong, accept_terms: true, key_name: 'k' } }))
          .body.code,
      ).toBe('otp_invalid');
      clockOffsetMs = 11 * 60_000;
      try {
        const late = await api
          .withIp(freshIp())
          .request('POST', '/api/v1/auth/verify-otp', { body: { email: address, code, accept_terms: true, key_name: 'k' } });
        expect(late.status).toBe(401);
        expect(late.body.code).toBe('otp_invalid');
      } finally {
        clockOffsetMs = 0;
      }
    });

    it('adds a key to an existing account with created: false', async () => {
      const address = email('twice-registered');
      await register(api.withIp(freshIp()), smtp, address);
      const second = await register(api.withIp(freshIp()), smtp, address);
      expect(second.created).toBe(false);
    });
  });

  describe('authentication', () => {
    it('answers 401 unauthorized identically for missing, malformed, invalid, expired and revoked keys', async () => {
      const client = api.withIp(freshIp());
      const owner = await register(client, smtp, email('auth'));
      const revoked = await client.request<{ token: string; key: { id: string } }>('POST', '/api/v1/keys', {
        token: owner.token,
        body: { name: 'doomed', permissions: ['stats:read'] },
      });
      expect((await client.request('DELETE', `/api/v1/keys/${revoked.body.key.id}`, { token: owner.token })).status).toBe(204);
      const shortLived = await client.request<{ token: string }>('POST', '/api/v1/keys', {
        token: owner.token,
        body: { name: 'short', permissions: ['keys:write'], expires_in_days: 1 },
      });
      const flipped = owner.token.slice(0, -1) + (owner.token.endsWith('A') ? 'B' : 'A');
      const answers = [];
      for (const headers of [
        {} as Record<string, string>,
        { authorization: 'Basic abc' },
        { authorization: 'Bearer not-a-key' },
        { authorization: `Bearer ${flipped}` },
        { authorization: `Bearer ${revoked.body.token}` },
      ]) {
        answers.push(await client.request('GET', '/api/v1/keys', { headers }));
      }
      clockOffsetMs = 2 * 86_400_000;
      try {
        answers.push(await client.request('GET', '/api/v1/keys', { token: shortLived.body.token }));
      } finally {
        clockOffsetMs = 0;
      }
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        const { request_id: _ignored, ...rest } = answer.body;
        expect(rest).toEqual({ code: 'unauthorized', error: answers[0]!.body.error });
      }
    });

    it('tells a key what it is: GET /keys/current needs no particular permission', async () => {
      const client = api.withIp(freshIp());
      const reader = await register(client, smtp, email('whoami'), { permissions: ['stats:read'], expires_in_days: 7 });
      const answer = await client.request('GET', '/api/v1/keys/current', { token: reader.token });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ key_id: reader.key.id, permissions: ['stats:read'], site_id: null, expires_at: reader.key.expires_at });
      expect((await client.request('GET', '/api/v1/keys/current')).status).toBe(401);
    });

    it('names the missing permission in 403 insufficient_scope', async () => {
      const client = api.withIp(freshIp());
      const owner = await register(client, smtp, email('scope'), { permissions: ['stats:read'] });
      const answer = await client.request('GET', '/api/v1/keys', { token: owner.token });
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('insufficient_scope');
      expect(answer.body.error).toContain('keys:write');
    });
  });

  describe('key management', () => {
    it('lists, creates, rotates and revokes keys with every rule', async () => {
      const client = api.withIp(freshIp());
      const owner = await register(client, smtp, email('keys'));
      const keysWriter = await client.request<{ token: string; key: { id: string } }>('POST', '/api/v1/keys', {
        token: owner.token,
        body: { name: 'keys only', permissions: ['keys:write'] },
      });
      expect(keysWriter.status).toBe(201);

      // scope escalation: a keys:write-only key creating a stats:read key, or rotating/revoking a stronger key
      const escalate = await client.request('POST', '/api/v1/keys', { token: keysWriter.body.token, body: { name: 'x', permissions: ['stats:read'] } });
      expect([escalate.status, escalate.body.code]).toEqual([403, 'scope_escalation']);
      const escalateRotate = await client.request('POST', `/api/v1/keys/${owner.key.id}/rotate`, { token: keysWriter.body.token });
      expect([escalateRotate.status, escalateRotate.body.code]).toEqual([403, 'scope_escalation']);

      // self modification
      const self = await client.request('POST', `/api/v1/keys/${owner.key.id}/rotate`, { token: owner.token });
      expect([self.status, self.body.code]).toEqual([409, 'self_modification']);
      const selfRevoke = await client.request('DELETE', `/api/v1/keys/${owner.key.id}`, { token: owner.token });
      expect([selfRevoke.status, selfRevoke.body.code]).toEqual([409, 'self_modification']);

      // unknown and another account's keys are not found
      const stranger = await register(api.withIp(freshIp()), smtp, email('stranger'));
      for (const id of ['key_doesnotexist', stranger.key.id]) {
        const missing = await client.request('DELETE', `/api/v1/keys/${id}`, { token: owner.token });
        expect([missing.status, missing.body.code]).toEqual([404, 'api_key_not_found']);
      }

      // rotate: new secret works at once, the old one (even cached) is dead at once
      expect((await client.request('GET', '/api/v1/keys', { token: keysWriter.body.token })).status).toBe(200);
      const rotated = await client.request<{ token: string; key: { id: string; name: string } }>('POST', `/api/v1/keys/${keysWriter.body.key.id}/rotate`, {
        token: owner.token,
      });
      expect(rotated.status).toBe(200);
      expect(rotated.body.key).toMatchObject({ id: keysWriter.body.key.id, name: 'keys only' });
      expect((await client.request('GET', '/api/v1/keys', { token: keysWriter.body.token })).status).toBe(401);
      expect((await client.request('GET', '/api/v1/keys', { token: rotated.body.token })).status).toBe(200);

      // list: revoked keys disappear; the cap counts active keys only
      const listed = await client.request<{ keys: Array<{ id: string }> }>('GET', '/api/v1/keys', { token: owner.token });
      expect(listed.body.keys.map((k) => k.id).sort()).toEqual([owner.key.id, keysWriter.body.key.id].sort());
      expect((await client.request('DELETE', `/api/v1/keys/${keysWriter.body.key.id}`, { token: owner.token })).status).toBe(204);
      const again = await client.request('DELETE', `/api/v1/keys/${keysWriter.body.key.id}`, { token: owner.token });
      expect([again.status, again.body.code]).toEqual([404, 'api_key_not_found']);
      for (let i = 0; i < 3; i += 1)
        expect((await client.request('POST', '/api/v1/keys', { token: owner.token, body: { name: `k${i}`, permissions: ['stats:read'] } })).status).toBe(201);
      const capped = await client.request('POST', '/api/v1/keys', { token: owner.token, body: { name: 'one too many', permissions: ['stats:read'] } });
      expect([capped.status, capped.body.code]).toEqual([400, 'key_limit_reached']);
    });

    it('keeps a single-site key inside its site: key_not_scoped; an unreachable site_id is unknown_site', async () => {
      const client = api.withIp(freshIp());
      const owner = await register(client, smtp, email('scoped'));
      const tag = Date.now().toString(36);
      const siteA = await client.request<{ site_id: number }>('POST', '/api/v1/sites', {
        token: owner.token,
        body: { url: `https://a-${tag}.sightline-e2e.net` },
      });
      const siteB = await client.request<{ site_id: number }>('POST', '/api/v1/sites', {
        token: owner.token,
        body: { url: `https://b-${tag}.sightline-e2e.net` },
      });
      expect([siteA.status, siteB.status]).toEqual([201, 201]);
      const siteKey = await client.request<{ token: string; key: { id: string; site_id: number } }>('POST', '/api/v1/keys', {
        token: owner.token,
        body: { name: 'site A', permissions: ['keys:write', 'stats:read'], site_id: siteA.body.site_id },
      });
      expect(siteKey.status).toBe(201);
      expect(siteKey.body.key.site_id).toBe(siteA.body.site_id);
      const allSites = await client.request('POST', '/api/v1/keys', { token: siteKey.body.token, body: { name: 'x', permissions: ['stats:read'] } });
      expect([allSites.status, allSites.body.code]).toEqual([403, 'key_not_scoped']);
      const otherSite = await client.request('POST', '/api/v1/keys', {
        token: siteKey.body.token,
        body: { name: 'x', permissions: ['stats:read'], site_id: siteB.body.site_id },
      });
      expect([otherSite.status, otherSite.body.code]).toEqual([403, 'key_not_scoped']);
      const sameSite = await client.request('POST', '/api/v1/keys', {
        token: siteKey.body.token,
        body: { name: 'x', permissions: ['stats:read'], site_id: siteA.body.site_id },
      });
      expect(sameSite.status).toBe(201);
      const outside = await client.request('DELETE', `/api/v1/keys/${owner.key.id}`, { token: siteKey.body.token });
      expect([outside.status, outside.body.code]).toEqual([403, 'key_not_scoped']);
      const stranger = await register(api.withIp(freshIp()), smtp, email('stranger-site'));
      for (const siteId of [siteA.body.site_id, 99_999_999]) {
        const foreign = await api
          .withIp(freshIp())
          .request('POST', '/api/v1/keys', { token: stranger.token, body: { name: 'x', permissions: ['stats:read'], site_id: siteId } });
        expect([foreign.status, foreign.body.code]).toEqual([404, 'unknown_site']);
      }
    });
  });

  describe('billing', () => {
    it('sets the subscription only with a billing:write key minted by an operator', async () => {
      const client = api.withIp(freshIp());
      const address = email('billing');
      const owner = await register(client, smtp, address);
      const refused = await client.request('PUT', '/api/v1/billing/subscription', { token: owner.token, body: { status: 'active' } });
      expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
      expect(refused.body.error).toContain('billing:write');

      const billingToken = await mintKey({ email: address, permissions: 'billing:write', databaseUrl: database.url, dataDir: server.dataDir });
      const set = await client.request('PUT', '/api/v1/billing/subscription', { token: billingToken, body: { status: 'active' } });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ plan: 'active', subscription_status: 'active', reports_open: true, tracking_active: true });
      const bad = await client.request('PUT', '/api/v1/billing/subscription', { token: billingToken, body: { status: 'gold' } });
      expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
    });
  });

  it('documents every new route in the OpenAPI description', async () => {
    const text = await (await fetch(`${sightline.url}/api/v1/openapi.yaml`)).text();
    for (const path of [
      '/auth/send-otp:',
      '/auth/verify-otp:',
      '/keys:',
      '/keys/current:',
      '/keys/{key_id}/rotate:',
      '/keys/{key_id}:',
      '/billing/subscription:',
    ])
      expect(text).toContain(path);
  });
});
