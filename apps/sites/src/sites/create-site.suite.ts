import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { auditContext, DEFAULT_TZ, freshUrl, PUBLIC_URL, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** CreateSite: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function createSiteSuite(suite: SitesSuite): void {
  const { test, owner, create, sitesOf } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('CreateSite', () => {
    test('creates a site with its snippet; the creator owns it; first non-hobby site', async () => {
      const o = owner();
      const answer = await h.rpc.createSite({ actor: o, audit: auditContext('req_client_create'), url: 'HTTPS://Shop.Example.COM/', idempotencyKey: '' });
      const site = answer.site!;
      expect(answer).toMatchObject({ status: 201, replayed: false, firstPaidSite: true });
      expect(site).toEqual({
        siteId: expect.any(Number),
        name: 'https://shop.example.com',
        hash: expect.stringMatching(/^[0-9A-Za-z]{24}$/),
        timezone: DEFAULT_TZ,
        weekStart: 1,
        hobby: false,
        scriptUrl: `${PUBLIC_URL}/js/${site.trackingKey}.js`,
        snippet: `<script defer src="${PUBLIC_URL}/js/${site.trackingKey}.js"></script>`,
        trackingKey: expect.stringMatching(/^[0-9A-Za-z]{24}$/),
        ownerAccountId: o.accountId,
        createdAt: h.time.now().toISOString(),
      });
      expect(site.trackingKey).not.toBe(site.hash);
      expect(site.scriptUrl).not.toContain(`/${site.siteId}.js`);
      await expect(h.rpc.getSite({ actor: o, siteId: site.siteId })).resolves.toEqual({ site, role: 'owner' });
      const { rows } = await h.db.query(
        'SELECT action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details FROM sites.audit_log WHERE site_id = $1',
        [site.siteId],
      );
      expect(rows).toEqual([
        {
          action: 'site.create',
          site_id: site.siteId,
          account_id: o.accountId,
          key_id: o.keyId,
          ip: '203.0.113.7',
          user_agent: 'sites-test/1.0',
          request_id: 'req_client_create',
          created_at: h.time.now(),
          details: { name: 'https://shop.example.com', timezone: DEFAULT_TZ, hobby: false, first_paid_site: true },
        },
      ]);
    });

    test('normalizes the url to its origin: case, IDN to punycode, root dot, default port, one trailing slash', async () => {
      const o = owner();
      const cases: Array<[string, string]> = [
        ['https://EXAMPLE.org/', 'https://example.org'],
        ['http://example.org:80', 'http://example.org'],
        ['https://a.example.org:443/', 'https://a.example.org'],
        ['https://example.org:8443', 'https://example.org:8443'],
        ['http://example.org:443', 'http://example.org:443'],
        ['https://Bücher.de', 'https://xn--bcher-kva.de'],
        ['  https://shop.example.net.  ', 'https://shop.example.net'],
      ];
      for (const [url, name] of cases) expect((await create(o, url)).name).toBe(name);
    });

    test('refuses anything but an origin with invalid_request, writing nothing', async () => {
      const o = owner();
      const bad = [
        '',
        'example.com',
        'ftp://example.com',
        'javascript:alert(1)',
        'https://',
        'https://example.com/path',
        'https://example.com//',
        'https://example.com/?q=1',
        'https://example.com?q=1',
        'https://example.com#top',
        'https://user:pw@example.com',
        'https://localhost',
        'https://localhost:3000',
        'https://127.0.0.1',
        'http://[::1]:8080',
        'https://example.com:0',
        'https://example.com:99999',
        'https://example.com:',
        'https://exa mple.com',
        'https://exa%6dple.com',
        'https://-bad-.com',
        `https://${'a'.repeat(64)}.com`,
        `https://${'a.'.repeat(1100)}com`,
      ];
      for (const url of bad)
        await expectApiError(
          h.rpc.createSite({ actor: o, audit: auditContext(), url, idempotencyKey: `k-${url.length}-${bad.indexOf(url)}` }),
          'invalid_request',
        );
      expect(await sitesOf(o.accountId)).toEqual([]);
      const records = await h.db.query('SELECT 1 FROM sites.idempotency_records WHERE account_id = $1', [o.accountId]);
      expect(records.rowCount).toBe(0);
    });

    test('refuses refused zones in any spelling with domain_not_allowed naming the zones, before anything is written', async () => {
      const o = owner();
      for (const url of [
        'https://shop.ru',
        'https://SHOP.RU/',
        'https://пример.рф',
        'https://xn--e1afmkfd.xn--p1ai',
        'http://a.su:8080',
        'https://site.by',
        'https://сайт.бел',
        'https://me.ru.',
      ]) {
        const error = await expectApiError(
          h.rpc.createSite({ actor: o, audit: auditContext(), url, idempotencyKey: `zone-${url}`.slice(0, 40).replace(/[^\x21-\x7e]/g, 'x') }),
          'domain_not_allowed',
        );
        expect(error.message).toContain('.ru, .su, .by, .рф, .бел');
      }
      // hobby sites too, and even when the hobby rule would refuse as well
      await expectApiError(
        h.rpc.createSite({ actor: o, audit: auditContext(), url: 'https://me.shop.ru', hobby: true, idempotencyKey: '' }),
        'domain_not_allowed',
      );
      expect(await sitesOf(o.accountId)).toEqual([]);
      expect((await h.db.query('SELECT 1 FROM sites.idempotency_records WHERE account_id = $1', [o.accountId])).rowCount).toBe(0);
      expect((await h.db.query('SELECT 1 FROM sites.audit_log WHERE account_id = $1', [o.accountId])).rowCount).toBe(0);
    });

    test('timezone: an IANA name, canonicalized; default from the configuration; anything else invalid_request', async () => {
      const o = owner();
      expect((await create(o, freshUrl(), { timezone: 'america/new_york' })).timezone).toBe('America/New_York');
      expect((await create(o, freshUrl(), { timezone: 'UTC' })).timezone).toBe('UTC');
      expect((await create(o, freshUrl(), { timezone: 'Etc/GMT-14' })).timezone).toBe('Etc/GMT-14');
      expect((await create(o)).timezone).toBe(DEFAULT_TZ);
      // SystemV/EST5: Intl knows it, the events store's tz database does not (every time series answered 500)
      for (const timezone of ['Mars/Olympus', '+01:00', '', 'Europe/Berlin; DROP TABLE', 'x'.repeat(65), 'SystemV/EST5', 'SystemV/PST8PDT']) {
        await expectApiError(
          h.rpc.createSite({ actor: o, audit: auditContext(), url: freshUrl(), timezone, idempotencyKey: '' }),
          'invalid_request',
          /timezone/,
        );
      }
    });

    test('hobby: only for a host strictly below a hobby zone; a hobby site is not a paid site', async () => {
      const o = owner();
      const hobby = await h.rpc.createSite({ actor: o, audit: auditContext(), url: 'https://Me.GitHub.io', hobby: true, idempotencyKey: '' });
      expect(hobby).toMatchObject({ status: 201, firstPaidSite: false, site: { name: 'https://me.github.io', hobby: true } });
      expect((await create(o, 'https://a.b.pages.dev', { hobby: true })).hobby).toBe(true);
      // IDN zone, configured in Unicode, matched in punycode
      expect((await create(o, 'https://me.xn--bcher-kva.example', { hobby: true })).hobby).toBe(true);
      for (const url of ['https://github.io', 'https://example.com', 'https://notgithub.io', 'https://github.io.evil.com']) {
        await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url, hobby: true, idempotencyKey: '' }), 'invalid_request', /github\.io/);
      }
      // hobby: false on a hobby host is an ordinary (paid) site
      const paid = await h.rpc.createSite({ actor: o, audit: auditContext(), url: 'https://you.github.io', hobby: false, idempotencyKey: '' });
      expect(paid).toMatchObject({ firstPaidSite: true, site: { hobby: false } });
    });

    test('first_paid_site: only the first non-hobby site ever, even after it was deleted', async () => {
      const o = owner();
      expect((await h.rpc.createSite({ actor: o, audit: auditContext(), url: 'https://one.github.io', hobby: true, idempotencyKey: '' })).firstPaidSite).toBe(
        false,
      );
      const first = await h.rpc.createSite({ actor: o, audit: auditContext(), url: freshUrl(), idempotencyKey: '' });
      expect(first.firstPaidSite).toBe(true);
      expect((await h.rpc.createSite({ actor: o, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).firstPaidSite).toBe(false);
      await h.rpc.deleteSite({ actor: o, audit: auditContext(), siteId: first.site!.siteId });
      expect((await h.rpc.createSite({ actor: o, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).firstPaidSite).toBe(false);
    });

    test('site_exists for an origin the account already has (any spelling), without returning it; other accounts may track it', async () => {
      const o = owner();
      const site = await create(o, 'https://dup.example.com');
      for (const url of ['https://dup.example.com', 'HTTPS://DUP.example.com:443/']) {
        const error = await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url, idempotencyKey: '' }), 'site_exists');
        expect(error.message).not.toContain(String(site.hash));
        expect(error.message).not.toContain(site.trackingKey);
      }
      // another scheme or port is another origin
      await create(o, 'http://dup.example.com');
      await create(o, 'https://dup.example.com:8443');
      const other = owner();
      const theirs = await create(other, 'https://dup.example.com');
      expect(theirs.siteId).not.toBe(site.siteId);
      expect(theirs.trackingKey).not.toBe(site.trackingKey);
      expect((await sitesOf(o.accountId)).map((s) => s.name)).toEqual(['https://dup.example.com', 'http://dup.example.com', 'https://dup.example.com:8443']);
    });

    test('hash and tracking key are random and unique per site', async () => {
      const o = owner();
      const sites = await Promise.all(Array.from({ length: 6 }, () => create(o)));
      const tokens = sites.flatMap((s) => [s.hash, s.trackingKey]);
      expect(new Set(tokens).size).toBe(12);
      // opaque random tokens, never the id
      for (const s of sites) expect([s.hash, s.trackingKey].every((t) => /^[0-9A-Za-z]{24}$/.test(t) && t !== String(s.siteId))).toBe(true);
    });

    test('a single-site key cannot create a site (key_not_scoped); a key without sites:write cannot (insufficient_scope); no actor is unauthorized', async () => {
      const o = owner();
      const site = await create(o);
      await expectApiError(
        h.rpc.createSite({ actor: { ...o, siteId: site.siteId }, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }),
        'key_not_scoped',
        /all sites/,
      );
      await expectApiError(
        h.rpc.createSite({ actor: { ...o, permissions: ['stats:read'] }, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }),
        'insufficient_scope',
        /sites:write/,
      );
      await expectApiError(h.rpc.createSite({ actor: undefined, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }), 'unauthorized');
      await expectApiError(h.rpc.createSite({ actor: { ...o, accountId: 0 }, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }), 'unauthorized');
      expect(await sitesOf(o.accountId)).toHaveLength(1);
    });

    test('at most 1000 sites per account', async () => {
      const o = owner();
      await create(o);
      await h.db.query(
        `INSERT INTO sites.sites (name, hash, tracking_key, timezone, week_start, hobby, owner_account_id, created_at, updated_at)
         SELECT 'https://bulk' || i || '.example.com', md5('h' || i || $1::bigint::text) || 'AAAAAA', md5('t' || i || $1::bigint::text) || 'BBBBBB', 'UTC', 1, false, $1::bigint, now(), now()
           FROM generate_series(1, 999) AS i`,
        [o.accountId],
      );
      await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }), 'invalid_request', /1000 sites/);
    });
  });
}
