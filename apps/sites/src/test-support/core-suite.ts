import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { sitesV1 } from '@sightline/proto';
import { UNKNOWN_SITE_MESSAGE } from '../access/reach.js';
import { fingerprintOf } from '../idempotency/idempotency.js';
import { expectApiError } from '@sightline/testkit';
import { reachMatrix } from './reach-matrix.js';
import { actorFor, auditContext, DEFAULT_TZ, freshAccountId, freshUrl, PUBLIC_URL, startSitesHarness, type SitesHarness } from './sites-harness.js';
import { DAY, MINUTE } from '@sightline/testkit';
import type { TestDb } from './test-databases.js';
import { waitFor } from './wait-for.js';

/**
 * The sites contract over gRPC, written once and run on each database adapter
 * (PGlite in sites.pglite.test.ts, PostgreSQL in sites.postgres.test.ts).
 */
export function sitesCoreSuite(name: string, openDb: () => Promise<TestDb | undefined>): void {
  describe(name, () => {
    let testDb: TestDb | undefined;
    let h: SitesHarness;

    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startSitesHarness({ db: testDb.db });
    });
    afterAll(async () => {
      await h?.close();
      await testDb?.dispose();
    });

    /** `it`, skipped when the database is not available */
    const test = (title: string, fn: () => Promise<void>, timeout?: number) =>
      it(
        title,
        async ({ skip }) => {
          if (!testDb) skip();
          await fn();
        },
        timeout,
      );

    const owner = () => actorFor(freshAccountId());
    const create = async (actor: sitesV1.Actor, url = freshUrl(), more: Partial<sitesV1.CreateSiteRequest> = {}) => {
      const answer = await h.rpc.createSite({ actor, audit: auditContext(), url, idempotencyKey: '', ...more });
      return answer.site!;
    };
    const sitesOf = async (accountId: number) =>
      (await h.db.query<{ id: number; name: string }>('SELECT id, name FROM sites.sites WHERE owner_account_id = $1 ORDER BY id', [accountId])).rows;
    const auditActions = async (siteId: number) =>
      (await h.db.query<{ action: string }>('SELECT action FROM sites.audit_log WHERE site_id = $1 ORDER BY id', [siteId])).rows.map((r) => r.action);
    /** a site with a member and an admin besides its owner */
    const sharedSite = async () => {
      const o = owner();
      const site = await create(o);
      const admin = actorFor(freshAccountId());
      const member = actorFor(freshAccountId());
      await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: admin.accountId, email: `a${admin.accountId}@mail.test`, role: 'admin' });
      await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: member.accountId, email: `m${member.accountId}@mail.test`, role: 'member' });
      return { owner: o, admin, member, site };
    };

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
        const { rows } = await h.db.query('SELECT action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details FROM sites.audit_log WHERE site_id = $1', [site.siteId]);
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
        for (const url of bad) await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url, idempotencyKey: `k-${url.length}-${bad.indexOf(url)}` }), 'invalid_request');
        expect(await sitesOf(o.accountId)).toEqual([]);
        const records = await h.db.query('SELECT 1 FROM sites.idempotency_records WHERE account_id = $1', [o.accountId]);
        expect(records.rowCount).toBe(0);
      });

      test('refuses refused zones in any spelling with domain_not_allowed naming the zones, before anything is written', async () => {
        const o = owner();
        for (const url of ['https://shop.ru', 'https://SHOP.RU/', 'https://пример.рф', 'https://xn--e1afmkfd.xn--p1ai', 'http://a.su:8080', 'https://site.by', 'https://сайт.бел', 'https://me.ru.']) {
          const error = await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url, idempotencyKey: `zone-${url}`.slice(0, 40).replace(/[^\x21-\x7e]/g, 'x') }), 'domain_not_allowed');
          expect(error.message).toContain('.ru, .su, .by, .рф, .бел');
        }
        // hobby sites too, and even when the hobby rule would refuse as well
        await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url: 'https://me.shop.ru', hobby: true, idempotencyKey: '' }), 'domain_not_allowed');
        expect(await sitesOf(o.accountId)).toEqual([]);
        expect((await h.db.query('SELECT 1 FROM sites.idempotency_records WHERE account_id = $1', [o.accountId])).rowCount).toBe(0);
        expect((await h.db.query('SELECT 1 FROM sites.audit_log WHERE account_id = $1', [o.accountId])).rowCount).toBe(0);
      });

      test('timezone: an IANA name, canonicalized; default from the configuration; anything else invalid_request', async () => {
        const o = owner();
        expect((await create(o, freshUrl(), { timezone: 'america/new_york' })).timezone).toBe('America/New_York');
        expect((await create(o, freshUrl(), { timezone: 'UTC' })).timezone).toBe('UTC');
        expect((await create(o)).timezone).toBe(DEFAULT_TZ);
        for (const timezone of ['Mars/Olympus', '+01:00', '', 'Europe/Berlin; DROP TABLE', 'x'.repeat(65)]) {
          await expectApiError(h.rpc.createSite({ actor: o, audit: auditContext(), url: freshUrl(), timezone, idempotencyKey: '' }), 'invalid_request', /timezone/);
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
        expect((await h.rpc.createSite({ actor: o, audit: auditContext(), url: 'https://one.github.io', hobby: true, idempotencyKey: '' })).firstPaidSite).toBe(false);
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
        await expectApiError(h.rpc.createSite({ actor: { ...o, siteId: site.siteId }, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }), 'key_not_scoped', /all sites/);
        await expectApiError(h.rpc.createSite({ actor: { ...o, permissions: ['stats:read'] }, audit: auditContext(), url: freshUrl(), idempotencyKey: '' }), 'insufficient_scope', /sites:write/);
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

    describe('ListSites and GetSite', () => {
      test('every site the key reaches with the caller role, ordered by site id; a single-site key sees its own', async () => {
        const me = owner();
        const mine = [await create(me), await create(me)];
        const { owner: other, site: shared } = await sharedSite();
        await h.rpc.addMember({ actor: other, audit: auditContext(), siteId: shared.siteId, accountId: me.accountId, email: 'me@mail.test', role: 'member' });
        const adminOf = await create(other);
        await h.rpc.addMember({ actor: other, audit: auditContext(), siteId: adminOf.siteId, accountId: me.accountId, email: 'me@mail.test', role: 'admin' });
        await create(other); // not shared with me

        const listed = await h.rpc.listSites({ actor: me });
        expect(listed.sites.map((s) => [s.site!.siteId, s.role])).toEqual([
          [mine[0]!.siteId, 'owner'],
          [mine[1]!.siteId, 'owner'],
          [shared.siteId, 'member'],
          [adminOf.siteId, 'admin'],
        ]);
        expect(listed.sites[2]!.site).toEqual(shared);
        expect(await h.rpc.listSites({ actor: { ...me, siteId: shared.siteId } })).toEqual({ sites: [{ site: shared, role: 'member' }] });
        await expect(h.rpc.getSite({ actor: me, siteId: adminOf.siteId })).resolves.toEqual({ site: adminOf, role: 'admin' });
        expect((await h.rpc.listSites({ actor: owner() })).sites).toEqual([]);
      });

      test('GetSiteByTrackingKey finds the site its tracking key names, and nothing else', async () => {
        const site = await create(owner());
        await expect(h.rpc.getSiteByTrackingKey({ trackingKey: site.trackingKey })).resolves.toEqual(site);
        for (const trackingKey of ['Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9', 'short', "x' OR 1=1 --", '']) {
          await expectApiError(h.rpc.getSiteByTrackingKey({ trackingKey }), 'unknown_site');
        }
      });
    });

    describe('UpdateSite', () => {
      test('changes timezone, week_start and url; token, hash and owner stay; audited with the changes', async () => {
        const o = owner();
        const site = await create(o, 'https://before.example.com');
        h.time.advance(MINUTE);
        const updated = await h.rpc.updateSite({ actor: o, audit: auditContext('req_update'), siteId: site.siteId, url: 'https://After.example.com/', timezone: 'asia/tokyo', weekStart: 0 });
        expect(updated).toEqual({ ...site, name: 'https://after.example.com', timezone: 'Asia/Tokyo', weekStart: 0 });
        await expect(h.rpc.getSite({ actor: o, siteId: site.siteId })).resolves.toEqual({ site: updated, role: 'owner' });
        const { rows } = await h.db.query<{ details: unknown; request_id: string }>("SELECT details, request_id FROM sites.audit_log WHERE site_id = $1 AND action = 'site.update'", [site.siteId]);
        expect(rows).toEqual([
          {
            request_id: 'req_update',
            details: {
              changes: {
                name: { from: 'https://before.example.com', to: 'https://after.example.com' },
                timezone: { from: DEFAULT_TZ, to: 'Asia/Tokyo' },
                week_start: { from: 1, to: 0 },
              },
            },
          },
        ]);
        // omitted fields stay; a request that changes nothing answers the site and records nothing
        expect(await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, weekStart: 0 })).toEqual(updated);
        expect(await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId })).toEqual(updated);
        expect(await auditActions(site.siteId)).toEqual(['site.create', 'site.update']);
      });

      test('a change announces site.updated (the site as it now is) through the outbox; a no-op announces nothing', async () => {
        const o = owner();
        const site = await create(o, 'https://announce.example.com');
        const outboxRows = async () =>
          (
            await h.db.query<{ payload: Record<string, unknown>; published_at: Date | null }>(
              "SELECT payload, published_at FROM sites.outbox WHERE subject = 'site.updated' AND (payload->>'site_id')::bigint = $1 ORDER BY id",
              [site.siteId],
            )
          ).rows;
        expect(await outboxRows()).toEqual([]);
        h.time.advance(MINUTE);
        await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, timezone: 'America/New_York', weekStart: 0 });
        await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, timezone: 'America/New_York' });
        await h.instance.relay.flush();
        const rows = await outboxRows();
        expect(rows.map((r) => r.payload)).toEqual([
          {
            site_id: site.siteId,
            account_id: o.accountId,
            tracking_key: site.trackingKey,
            name: 'https://announce.example.com',
            timezone: 'America/New_York',
            week_start: 0,
            updated_at: h.time.now().toISOString(),
          },
        ]);
        expect(rows[0]!.published_at).not.toBeNull();
      });

      test('validates like creation: week_start 0..6, IANA timezone, origin url, refused zones; nothing changes', async () => {
        const o = owner();
        const site = await create(o);
        const update = (more: Partial<sitesV1.UpdateSiteRequest>) => h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, ...more });
        await expectApiError(update({ weekStart: 7 }), 'invalid_request', /week_start/);
        await expectApiError(update({ weekStart: -1 }), 'invalid_request', /week_start/);
        await expectApiError(update({ timezone: 'Nowhere/City' }), 'invalid_request', /timezone/);
        await expectApiError(update({ url: 'example.com' }), 'invalid_request', /http/);
        await expectApiError(update({ url: 'https://example.com/path' }), 'invalid_request', /path/);
        await expectApiError(update({ url: 'https://пример.рф', timezone: 'UTC' }), 'domain_not_allowed', /\.рф/);
        await expect(h.rpc.getSite({ actor: o, siteId: site.siteId })).resolves.toEqual({ site, role: 'owner' });
      });

      test('site_exists when the owner account already uses the origin; other accounts origins are free', async () => {
        const o = owner();
        const a = await create(o, 'https://taken.example.com');
        const b = await create(o);
        await expectApiError(h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: b.siteId, url: 'https://TAKEN.example.com' }), 'site_exists');
        // the same origin as itself is no change
        expect((await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: a.siteId, url: 'https://taken.example.com/' })).name).toBe('https://taken.example.com');
        const other = owner();
        await create(other, 'https://theirs.example.com');
        expect((await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: b.siteId, url: 'https://theirs.example.com' })).name).toBe('https://theirs.example.com');
      });

      test('a hobby site keeps a qualifying host', async () => {
        const o = owner();
        const site = await create(o, 'https://old.github.io', { hobby: true });
        await expectApiError(h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, url: 'https://example.com' }), 'invalid_request', /hobby/);
        await expectApiError(h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, url: 'https://github.io' }), 'invalid_request', /hobby/);
        expect(await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, url: 'https://new.pages.dev' })).toMatchObject({ name: 'https://new.pages.dev', hobby: true });
        // a paid site may move anywhere allowed
        const paid = await create(o, 'https://paid.github.io');
        expect((await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: paid.siteId, url: 'https://paid.example.com' })).name).toBe('https://paid.example.com');
      });

      test('owner and admin may update; a member may not', async () => {
        const { admin, member, site } = await sharedSite();
        expect((await h.rpc.updateSite({ actor: admin, audit: auditContext(), siteId: site.siteId, weekStart: 3 })).weekStart).toBe(3);
        await expectApiError(h.rpc.updateSite({ actor: member, audit: auditContext(), siteId: site.siteId, weekStart: 4 }), 'not_site_owner');
        expect((await h.rpc.getSite({ actor: member, siteId: site.siteId })).site!.weekStart).toBe(3);
      });
    });

    describe('DeleteSite', () => {
      test('the owner deletes the site and everything of it; the audit trail stays but is unreachable; site.deleted reaches a consumer', async () => {
        const { owner: o, admin, member, site } = await sharedSite();
        const g1 = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Signup' });
        const g2 = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath: '/thanks' });
        await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'Flow', steps: [g1.goalId, g2.goalId] });
        h.time.advance(MINUTE);
        await expect(h.rpc.deleteSite({ actor: o, audit: auditContext('req_delete'), siteId: site.siteId })).resolves.toEqual({});

        for (const actor of [o, admin, member]) {
          await expectApiError(h.rpc.getSite({ actor, siteId: site.siteId }), 'unknown_site');
          expect((await h.rpc.listSites({ actor })).sites.map((s) => s.site!.siteId)).not.toContain(site.siteId);
        }
        await expectApiError(h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 0, cursor: '' }), 'unknown_site');
        for (const table of ['sites', 'site_members', 'goals', 'funnels']) {
          const column = table === 'sites' ? 'id' : 'site_id';
          expect((await h.db.query(`SELECT 1 FROM sites.${table} WHERE ${column} = $1`, [site.siteId])).rowCount, table).toBe(0);
        }
        expect((await h.db.query('SELECT 1 FROM sites.funnel_steps WHERE goal_id = ANY($1::bigint[])', [[g1.goalId, g2.goalId]])).rowCount).toBe(0);
        const actions = await auditActions(site.siteId);
        expect(actions.at(-1)).toBe('site.delete');
        expect(actions).toContain('funnel.create');

        const expected = { site_id: site.siteId, account_id: o.accountId, tracking_key: site.trackingKey, deleted_at: h.time.now().toISOString() };
        await waitFor(() => h.deleted.some((m) => m.site_id === site.siteId));
        const message = h.deleted.find((m) => m.site_id === site.siteId)!;
        const { rows } = await h.db.query<{ message_id: string; payload: unknown; published_at: Date | null }>('SELECT message_id, payload, published_at FROM sites.outbox WHERE payload->>\'tracking_key\' = $1', [site.trackingKey]);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.payload).toEqual(expected);
        expect(rows[0]!.published_at).toEqual(h.time.now());
        expect(message).toEqual({ ...expected, msgId: `sites-outbox-${rows[0]!.message_id}` });
      });

      test('admins and members may not delete (not_site_owner); nothing changes', async () => {
        const { owner: o, admin, member, site } = await sharedSite();
        await expectApiError(h.rpc.deleteSite({ actor: admin, audit: auditContext(), siteId: site.siteId }), 'not_site_owner', /owner/);
        await expectApiError(h.rpc.deleteSite({ actor: member, audit: auditContext(), siteId: site.siteId }), 'not_site_owner');
        await expect(h.rpc.getSite({ actor: o, siteId: site.siteId })).resolves.toMatchObject({ role: 'owner' });
        expect((await h.db.query('SELECT 1 FROM sites.outbox WHERE (payload->>\'site_id\')::bigint = $1', [site.siteId])).rowCount).toBe(0);
      });

      test('503 deletion_unavailable when the deletion cannot be recorded first: nothing is deleted', async () => {
        const o = owner();
        const site = await create(o);
        const goal = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Buy' });
        const member = actorFor(freshAccountId());
        await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: member.accountId, email: 'm@mail.test', role: 'member' });
        // the outbox refuses this message for real (a constraint the insert violates)
        await h.db.query("ALTER TABLE sites.outbox ADD CONSTRAINT test_outbox_broken CHECK (subject <> 'site.deleted') NOT VALID");
        try {
          await expectApiError(h.rpc.deleteSite({ actor: o, audit: auditContext(), siteId: site.siteId }), 'deletion_unavailable', /nothing was deleted/);
        } finally {
          await h.db.query('ALTER TABLE sites.outbox DROP CONSTRAINT test_outbox_broken');
        }
        await expect(h.rpc.getSite({ actor: o, siteId: site.siteId })).resolves.toEqual({ site, role: 'owner' });
        await expect(h.rpc.getSite({ actor: member, siteId: site.siteId })).resolves.toMatchObject({ role: 'member' });
        expect((await h.rpc.listGoals({ actor: o, siteId: site.siteId })).goals).toEqual([goal]);
        expect(await auditActions(site.siteId)).not.toContain('site.delete');
        // once the outbox works again, the deletion goes through
        await h.rpc.deleteSite({ actor: o, audit: auditContext(), siteId: site.siteId });
        await expectApiError(h.rpc.getSite({ actor: o, siteId: site.siteId }), 'unknown_site');
        await waitFor(() => h.deleted.some((m) => m.site_id === site.siteId));
      });
    });

    describe('members', () => {
      test('owner adds admins and members; the list starts with the owner; re-adding sets the role; audited', async () => {
        const o = owner();
        const site = await create(o);
        const a = freshAccountId();
        const m = freshAccountId();
        h.time.advance(1_000);
        const added = await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: a, email: ' Admin@Mail.test ', role: 'admin' });
        expect(added).toEqual({ accountId: a, email: 'admin@mail.test', role: 'admin', addedAt: h.time.now().toISOString() });
        h.time.advance(1_000);
        await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: m, email: 'member@mail.test', role: 'member' });
        const listed = await h.rpc.listMembers({ actor: o, siteId: site.siteId });
        expect(listed.members.map((x) => [x.accountId, x.role, x.email])).toEqual([
          [o.accountId, 'owner', ''],
          [a, 'admin', 'admin@mail.test'],
          [m, 'member', 'member@mail.test'],
        ]);
        // re-adding changes the role, keeps added_at
        const promoted = await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: m, email: 'member@mail.test', role: 'admin' });
        expect(promoted).toMatchObject({ role: 'admin', addedAt: listed.members[2]!.addedAt });
        // the same again is no change and no audit entry
        await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: m, email: 'member@mail.test', role: 'admin' });
        const { rows } = await h.db.query<{ details: Record<string, unknown> }>("SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'member.add' ORDER BY id", [site.siteId]);
        expect(rows.map((r) => r.details)).toEqual([
          { account_id: a, email: 'admin@mail.test', role: 'admin', previous_role: null },
          { account_id: m, email: 'member@mail.test', role: 'member', previous_role: null },
          { account_id: m, email: 'member@mail.test', role: 'admin', previous_role: 'member' },
        ]);
        await expect(h.rpc.getSite({ actor: actorFor(m), siteId: site.siteId })).resolves.toMatchObject({ role: 'admin' });
      });

      test('bad input and the owner are refused with invalid_request', async () => {
        const o = owner();
        const site = await create(o);
        const add = (more: Partial<sitesV1.AddMemberRequest>) =>
          h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: freshAccountId(), email: 'x@mail.test', role: 'member', ...more });
        await expectApiError(add({ role: 'owner' }), 'invalid_request', /role/);
        await expectApiError(add({ role: 'viewer' }), 'invalid_request', /role/);
        await expectApiError(add({ role: '' }), 'invalid_request', /role/);
        await expectApiError(add({ accountId: 0 }), 'invalid_request', /account_id/);
        await expectApiError(add({ email: '' }), 'invalid_request', /email/);
        await expectApiError(add({ email: `${'x'.repeat(250)}@mail.test` }), 'invalid_request', /email/);
        await expectApiError(add({ accountId: o.accountId, role: 'admin' }), 'invalid_request', /owner/);
        await expectApiError(h.rpc.removeMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: o.accountId }), 'invalid_request', /owner/);
        await expectApiError(h.rpc.removeMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: freshAccountId() }), 'invalid_request', /not a member/);
        expect((await h.rpc.listMembers({ actor: o, siteId: site.siteId })).members).toHaveLength(1);
      });

      test('admins manage members but not admins, and may leave; a removed person no longer reaches the site', async () => {
        const { owner: o, admin, member, site } = await sharedSite();
        const other = actorFor(freshAccountId());
        const add = (actor: sitesV1.Actor, accountId: number, role: string) =>
          h.rpc.addMember({ actor, audit: auditContext(), siteId: site.siteId, accountId, email: `p${accountId}@mail.test`, role });
        await expect(add(admin, other.accountId, 'member')).resolves.toMatchObject({ role: 'member' });
        await expectApiError(add(admin, freshAccountId(), 'admin'), 'not_site_owner', /admin role/);
        await expectApiError(add(admin, member.accountId, 'admin'), 'not_site_owner');
        const admin2 = actorFor(freshAccountId());
        await add(o, admin2.accountId, 'admin');
        await expectApiError(add(admin, admin2.accountId, 'member'), 'not_site_owner');
        await expectApiError(h.rpc.removeMember({ actor: admin, audit: auditContext(), siteId: site.siteId, accountId: admin2.accountId }), 'not_site_owner');
        await expect(h.rpc.removeMember({ actor: admin, audit: auditContext(), siteId: site.siteId, accountId: other.accountId })).resolves.toEqual({});
        await expectApiError(h.rpc.getSite({ actor: other, siteId: site.siteId }), 'unknown_site');
        // an admin may remove themselves
        await h.rpc.removeMember({ actor: admin2, audit: auditContext(), siteId: site.siteId, accountId: admin2.accountId });
        await expectApiError(h.rpc.getSite({ actor: admin2, siteId: site.siteId }), 'unknown_site');
        // the owner removes an admin
        await h.rpc.removeMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: admin.accountId });
        await expectApiError(h.rpc.listMembers({ actor: admin, siteId: site.siteId }), 'unknown_site');
        const { rows } = await h.db.query<{ details: { account_id: number; role: string } }>("SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'member.remove' ORDER BY id", [site.siteId]);
        expect(rows.map((r) => [r.details.account_id, r.details.role])).toEqual([
          [other.accountId, 'member'],
          [admin2.accountId, 'admin'],
          [admin.accountId, 'admin'],
        ]);
      });

      test('at most 100 people per site, the owner included', async () => {
        const o = owner();
        const site = await create(o);
        await h.db.query(
          "INSERT INTO sites.site_members (site_id, account_id, email, role, added_at) SELECT $1, 900000000 + i, 'bulk' || i || '@mail.test', 'member', now() FROM generate_series(1, 99) AS i",
          [site.siteId],
        );
        await expectApiError(
          h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: freshAccountId(), email: 'one@mail.test', role: 'member' }),
          'invalid_request',
          /100/,
        );
        // changing the role of someone already there is not adding
        await expect(h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: 900000001, email: 'bulk1@mail.test', role: 'admin' })).resolves.toMatchObject({ role: 'admin' });
      });
    });

    describe('goals', () => {
      test('event and page goals, default display names, wildcards; listed in creation order to every role', async () => {
        const { owner: o, member, site } = await sharedSite();
        const event = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: ' Signup ' });
        expect(event).toEqual({ goalId: expect.any(Number), siteId: site.siteId, eventName: 'Signup', pagePath: undefined, displayName: 'Signup', createdAt: h.time.now().toISOString() });
        const page = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath: '/thanks' });
        expect(page).toMatchObject({ eventName: undefined, pagePath: '/thanks', displayName: 'Visit /thanks' });
        const wildcard = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath: '/blog/**/comments/*', displayName: 'Commented' });
        expect(wildcard).toMatchObject({ pagePath: '/blog/**/comments/*', displayName: 'Commented' });
        expect(await h.rpc.listGoals({ actor: member, siteId: site.siteId })).toEqual({ goals: [event, page, wildcard] });
        const { rows } = await h.db.query<{ details: unknown }>("SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'goal.create' ORDER BY id", [site.siteId]);
        expect(rows[0]!.details).toEqual({ goal_id: event.goalId, event_name: 'Signup', page_path: null, display_name: 'Signup' });
      });

      test('exactly one of event_name and page_path; bounded strings; paths start with /', async () => {
        const o = owner();
        const site = await create(o);
        const goal = (more: Partial<sitesV1.CreateGoalRequest>) => h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, ...more });
        await expectApiError(goal({}), 'invalid_request', /exactly one/);
        await expectApiError(goal({ eventName: 'A', pagePath: '/a' }), 'invalid_request', /exactly one/);
        await expectApiError(goal({ eventName: '' }), 'invalid_request', /event_name/);
        await expectApiError(goal({ eventName: '   ' }), 'invalid_request', /event_name/);
        await expectApiError(goal({ eventName: 'e'.repeat(121) }), 'invalid_request', /event_name/);
        await expectApiError(goal({ eventName: 'a\u0000b' }), 'invalid_request', /event_name/);
        await expectApiError(goal({ pagePath: 'thanks' }), 'invalid_request', /start with \//);
        await expectApiError(goal({ pagePath: '/a b' }), 'invalid_request', /whitespace/);
        await expectApiError(goal({ pagePath: `/${'p'.repeat(2048)}` }), 'invalid_request', /page_path/);
        await expectApiError(goal({ pagePath: `/${'p'.repeat(200)}` }), 'invalid_request', /display_name/);
        await expectApiError(goal({ eventName: 'Ok', displayName: 'd'.repeat(121) }), 'invalid_request', /display_name/);
        await expectApiError(goal({ eventName: 'Ok', displayName: '' }), 'invalid_request', /display_name/);
        expect((await goal({ eventName: 'e'.repeat(120), displayName: 'd'.repeat(120) })).displayName).toHaveLength(120);
        expect((await goal({ pagePath: `/${'p'.repeat(2047)}`, displayName: 'Long path' })).pagePath).toHaveLength(2048);
      });

      test('goal_exists on a display name the site has (ignoring case); another site may reuse it', async () => {
        const o = owner();
        const site = await create(o);
        await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Signup' });
        await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'signup' }), 'goal_exists', /signup/);
        await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath: '/s', displayName: 'SIGNUP' }), 'goal_exists');
        const other = await create(o);
        await expect(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'Signup' })).resolves.toMatchObject({ displayName: 'Signup' });
        expect((await h.rpc.listGoals({ actor: o, siteId: site.siteId })).goals).toHaveLength(1);
        expect(await auditActions(site.siteId)).toEqual(['site.create', 'goal.create']);
      });

      test('DeleteGoal: goal_not_found (also another site goal), goal_in_use naming the funnel, then deleted and audited', async () => {
        const o = owner();
        const site = await create(o);
        const other = await create(o);
        const theirGoal = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'X' });
        const g1 = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'A' });
        const g2 = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'B' });
        const funnel = await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'Checkout flow', steps: [g1.goalId, g2.goalId] });
        const del = (goalId: number) => h.rpc.deleteGoal({ actor: o, audit: auditContext(), siteId: site.siteId, goalId });
        await expectApiError(del(999_999_999), 'goal_not_found');
        await expectApiError(del(0), 'goal_not_found');
        await expectApiError(del(theirGoal.goalId), 'goal_not_found');
        await expectApiError(del(g1.goalId), 'goal_in_use', /"Checkout flow"/);
        await h.rpc.deleteFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, funnelId: funnel.funnelId });
        await expect(del(g1.goalId)).resolves.toEqual({});
        expect((await h.rpc.listGoals({ actor: o, siteId: site.siteId })).goals).toEqual([g2]);
        expect((await h.rpc.listGoals({ actor: o, siteId: other.siteId })).goals).toEqual([theirGoal]);
        expect(await auditActions(site.siteId)).toEqual(['site.create', 'goal.create', 'goal.create', 'funnel.create', 'funnel.delete', 'goal.delete']);
      });

      test('at most 500 goals per site', async () => {
        const o = owner();
        const site = await create(o);
        await h.db.query("INSERT INTO sites.goals (site_id, event_name, display_name, created_at) SELECT $1, 'e' || i, 'e' || i, now() FROM generate_series(1, 499) AS i", [site.siteId]);
        await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'last' });
        await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'one more' }), 'invalid_request', /500/);
      });
    });

    describe('funnels', () => {
      test('2..8 distinct goals of the site, steps returned in order as goals; list and get; audited', async () => {
        const { owner: o, member, site } = await sharedSite();
        const goals = [];
        for (const eventName of ['Visit', 'Cart', 'Pay']) goals.push(await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName }));
        const funnel = await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: ' Checkout ', steps: [goals[2]!.goalId, goals[0]!.goalId, goals[1]!.goalId] });
        expect(funnel).toEqual({ funnelId: expect.any(Number), siteId: site.siteId, name: 'Checkout', steps: [goals[2], goals[0], goals[1]], createdAt: h.time.now().toISOString() });
        await expect(h.rpc.getFunnel({ actor: member, siteId: site.siteId, funnelId: funnel.funnelId })).resolves.toEqual(funnel);
        const second = await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'Short', steps: [goals[0]!.goalId, goals[1]!.goalId] });
        expect(await h.rpc.listFunnels({ actor: member, siteId: site.siteId })).toEqual({ funnels: [funnel, second] });
        const { rows } = await h.db.query<{ details: unknown }>("SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'funnel.create' ORDER BY id", [site.siteId]);
        expect(rows[0]!.details).toEqual({ funnel_id: funnel.funnelId, name: 'Checkout', steps: [goals[2]!.goalId, goals[0]!.goalId, goals[1]!.goalId] });
      });

      test('refusals: step count, duplicates, unknown or foreign goals, names, funnel_exists', async () => {
        const o = owner();
        const site = await create(o);
        const other = await create(o);
        const ids: number[] = [];
        for (let i = 0; i < 9; i++) ids.push((await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: `g${i}` })).goalId);
        const foreign = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'elsewhere' });
        const funnel = (name: string, steps: number[]) => h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name, steps });
        await expectApiError(funnel('One', ids.slice(0, 1)), 'invalid_request', /2 to 8/);
        await expectApiError(funnel('None', []), 'invalid_request', /2 to 8/);
        await expectApiError(funnel('Nine', ids), 'invalid_request', /2 to 8/);
        await expectApiError(funnel('Dup', [ids[0]!, ids[1]!, ids[0]!]), 'invalid_request', /duplicates/);
        await expectApiError(funnel('Unknown', [ids[0]!, 999_999_999]), 'goal_not_found', /999999999/);
        await expectApiError(funnel('Foreign', [ids[0]!, foreign.goalId]), 'goal_not_found', new RegExp(String(foreign.goalId)));
        await expectApiError(funnel('', ids.slice(0, 2)), 'invalid_request', /name/);
        await expectApiError(funnel('n'.repeat(121), ids.slice(0, 2)), 'invalid_request', /name/);
        expect((await funnel('Eight', ids.slice(0, 8))).steps).toHaveLength(8);
        await expectApiError(funnel('EIGHT', ids.slice(0, 2)), 'funnel_exists', /EIGHT/);
        expect((await h.rpc.listFunnels({ actor: o, siteId: site.siteId })).funnels.map((f) => f.name)).toEqual(['Eight']);
      });

      test('Get and Delete of an unknown or foreign funnel: unknown_funnel', async () => {
        const o = owner();
        const site = await create(o);
        const other = await create(o);
        const [a, b] = [await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'a' }), await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'b' })];
        const foreign = await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: other.siteId, name: 'F', steps: [a.goalId, b.goalId] });
        for (const funnelId of [0, 999_999_999, foreign.funnelId]) {
          await expectApiError(h.rpc.getFunnel({ actor: o, siteId: site.siteId, funnelId }), 'unknown_funnel');
          await expectApiError(h.rpc.deleteFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, funnelId }), 'unknown_funnel');
        }
        await expect(h.rpc.getFunnel({ actor: o, siteId: other.siteId, funnelId: foreign.funnelId })).resolves.toEqual(foreign);
        await h.rpc.deleteFunnel({ actor: o, audit: auditContext(), siteId: other.siteId, funnelId: foreign.funnelId });
        await expectApiError(h.rpc.getFunnel({ actor: o, siteId: other.siteId, funnelId: foreign.funnelId }), 'unknown_funnel');
      });

      test('at most 100 funnels per site', async () => {
        const o = owner();
        const site = await create(o);
        const a = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'a' });
        const b = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'b' });
        await h.db.query("INSERT INTO sites.funnels (site_id, name, created_at) SELECT $1, 'f' || i, now() FROM generate_series(1, 99) AS i", [site.siteId]);
        await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'last', steps: [a.goalId, b.goalId] });
        await expectApiError(h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'one more', steps: [a.goalId, b.goalId] }), 'invalid_request', /100/);
      });
    });

    describe('audit trail', () => {
      test('every write, newest first, with key, ip, user agent, request id, time and details; owner and admins only', async () => {
        const { owner: o, admin, member, site } = await sharedSite();
        const g1 = await h.rpc.createGoal({ actor: admin, audit: { ip: '2001:db8::1', userAgent: 'curl/8.5.0', requestId: 'req_goal' }, siteId: site.siteId, eventName: 'A' });
        h.time.advance(1_000);
        const g2 = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'B' });
        const f = await h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'F', steps: [g1.goalId, g2.goalId] });
        await h.rpc.deleteFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, funnelId: f.funnelId });
        await h.rpc.deleteGoal({ actor: o, audit: auditContext(), siteId: site.siteId, goalId: g2.goalId });
        await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, weekStart: 5 });
        await h.rpc.removeMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: member.accountId });
        // without an AuditContext the call's own request id is recorded
        await h.rpc.createGoal({ actor: o, audit: undefined, siteId: site.siteId, eventName: 'C' });

        const page = await h.rpc.listAudit({ actor: admin, siteId: site.siteId, limit: 0, cursor: '' });
        expect(page.nextCursor).toBe('');
        expect(page.entries.map((e) => e.action)).toEqual([
          'goal.create',
          'member.remove',
          'site.update',
          'goal.delete',
          'funnel.delete',
          'funnel.create',
          'goal.create',
          'goal.create',
          'member.add',
          'member.add',
          'site.create',
        ]);
        expect(page.entries[0]!.requestId).toMatch(/^req_test_\d+$/);
        expect(page.entries[0]).toMatchObject({ ip: '', userAgent: '' });
        const byAdmin = page.entries[7]!;
        expect(byAdmin).toEqual({
          entryId: expect.any(Number),
          action: 'goal.create',
          siteId: site.siteId,
          accountId: admin.accountId,
          keyId: admin.keyId,
          ip: '2001:db8::1',
          userAgent: 'curl/8.5.0',
          requestId: 'req_goal',
          createdAt: expect.any(String),
          detailsJson: expect.any(String),
        });
        expect(JSON.parse(byAdmin.detailsJson)).toEqual({ goal_id: g1.goalId, event_name: 'A', page_path: null, display_name: 'A' });
        expect(JSON.parse(page.entries[2]!.detailsJson)).toEqual({ changes: { week_start: { from: 1, to: 5 } } });
        await expectApiError(h.rpc.listAudit({ actor: member, siteId: site.siteId, limit: 0, cursor: '' }), 'unknown_site'); // removed above
        const reader = actorFor(freshAccountId());
        await h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: reader.accountId, email: 'r@mail.test', role: 'member' });
        await expectApiError(h.rpc.listAudit({ actor: reader, siteId: site.siteId, limit: 0, cursor: '' }), 'not_site_owner');
      });

      test('pages with an opaque cursor; limit 1..200 (default 50); a foreign or broken cursor is invalid_request', async () => {
        const o = owner();
        const site = await create(o);
        for (let i = 0; i < 6; i++) await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: `e${i}` });
        const all = (await h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 200, cursor: '' })).entries;
        expect(all).toHaveLength(7);
        const seen: sitesV1.AuditEntry[] = [];
        let cursor = '';
        const sizes: number[] = [];
        do {
          const page = await h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 3, cursor });
          sizes.push(page.entries.length);
          seen.push(...page.entries);
          cursor = page.nextCursor;
        } while (cursor !== '');
        expect(sizes).toEqual([3, 3, 1]);
        expect(seen).toEqual(all);
        expect(all.map((e) => e.entryId)).toEqual([...all.map((e) => e.entryId)].sort((a, b) => b - a));
        // exactly a page: no empty trailing page
        const exact = await h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 7, cursor: '' });
        expect(exact.nextCursor).toBe('');

        for (let i = 0; i < 50; i++) await h.db.query("INSERT INTO sites.audit_log (action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details) VALUES ('goal.create', $1, $2, 'k', '', '', 'r', now(), '{}')", [site.siteId, o.accountId]);
        expect((await h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 0, cursor: '' })).entries).toHaveLength(50);
        await expectApiError(h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 201, cursor: '' }), 'invalid_request', /limit/);
        const other = await create(o);
        const foreignCursor = (await h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 1, cursor: '' })).nextCursor;
        await expectApiError(h.rpc.listAudit({ actor: o, siteId: other.siteId, limit: 1, cursor: foreignCursor }), 'invalid_request', /cursor/);
        for (const bad of ['garbage!', 'e30', Buffer.from('{"s":1,"b":-1}').toString('base64url'), 'x'.repeat(300)]) {
          await expectApiError(h.rpc.listAudit({ actor: o, siteId: site.siteId, limit: 1, cursor: bad }), 'invalid_request', /cursor/);
        }
      });

      test('a refused write leaves no audit entry', async () => {
        const o = owner();
        const site = await create(o);
        await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Same' });
        await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Same' }), 'goal_exists');
        await expectApiError(h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, weekStart: 9 }), 'invalid_request');
        expect(await auditActions(site.siteId)).toEqual(['site.create', 'goal.create']);
      });
    });

    describe('Idempotency-Key', () => {
      const request = (actor: sitesV1.Actor, url: string, idempotencyKey: string, more: Partial<sitesV1.CreateSiteRequest> = {}): sitesV1.CreateSiteRequest => ({
        actor,
        audit: auditContext(),
        url,
        idempotencyKey,
        ...more,
      });
      const recordOf = async (accountId: number, key: string) =>
        (await h.db.query<{ state: string }>('SELECT state FROM sites.idempotency_records WHERE account_id = $1 AND idempotency_key = $2', [accountId, key])).rows[0];

      test('the same key and request replays the stored answer; nothing else is created', async () => {
        const o = owner();
        const url = freshUrl();
        const first = await h.rpc.createSite(request(o, url, 'key-1', { timezone: 'UTC' }));
        expect(first).toMatchObject({ status: 201, replayed: false, firstPaidSite: true });
        h.time.advance(23 * 60 * MINUTE);
        const again = await h.rpc.createSite(request(o, url, 'key-1', { timezone: 'UTC' }));
        expect(again).toEqual({ ...first, replayed: true });
        expect(await sitesOf(o.accountId)).toHaveLength(1);
        expect(await auditActions(first.site!.siteId)).toEqual(['site.create']);
        // the stored answer outlives changes to the site (it is the answer, not a read)
        await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: first.site!.siteId, weekStart: 0 });
        expect((await h.rpc.createSite(request(o, url, 'key-1', { timezone: 'UTC' }))).site).toEqual(first.site);
      });

      test('the same key with a different request is idempotency_conflict (fields compared as sent)', async () => {
        const o = owner();
        const url = freshUrl();
        await h.rpc.createSite(request(o, url, 'key-2'));
        await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'key-2')), 'idempotency_conflict', /different request/);
        await expectApiError(h.rpc.createSite(request(o, url.toUpperCase(), 'key-2')), 'idempotency_conflict');
        await expectApiError(h.rpc.createSite(request(o, url, 'key-2', { timezone: DEFAULT_TZ })), 'idempotency_conflict');
        await expectApiError(h.rpc.createSite(request(o, url, 'key-2', { hobby: false })), 'idempotency_conflict');
        expect(await sitesOf(o.accountId)).toHaveLength(1);
      });

      test('keys belong to the account: another account may use the same key', async () => {
        const [a, b] = [owner(), owner()];
        const siteA = await h.rpc.createSite(request(a, freshUrl(), 'shared-key'));
        const siteB = await h.rpc.createSite(request(b, freshUrl(), 'shared-key'));
        expect(siteB).toMatchObject({ status: 201, replayed: false });
        expect(siteB.site!.siteId).not.toBe(siteA.site!.siteId);
      });

      test('without a key nothing is deduplicated: the repeat is a new request (site_exists)', async () => {
        const o = owner();
        const url = freshUrl();
        await h.rpc.createSite(request(o, url, ''));
        await expectApiError(h.rpc.createSite(request(o, url, '')), 'site_exists');
      });

      test('a malformed key is invalid_request; a refused request stores nothing under its key', async () => {
        const o = owner();
        await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'k'.repeat(256))), 'invalid_request', /Idempotency-Key/);
        await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'schlüssel')), 'invalid_request', /Idempotency-Key/);
        await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'has space')), 'invalid_request', /Idempotency-Key/);
        await expectApiError(h.rpc.createSite(request(o, 'https://x.ru', 'key-3')), 'domain_not_allowed');
        expect(await recordOf(o.accountId, 'key-3')).toBeUndefined();
        // the key is still free for a valid request
        await expect(h.rpc.createSite(request(o, freshUrl(), 'key-3'))).resolves.toMatchObject({ replayed: false });
        expect(await h.rpc.createSite(request(o, freshUrl(), 'k'.repeat(255)))).toMatchObject({ status: 201 });
      });

      test('a failure inside the transaction (site_exists) releases the key: the repeat fails the same way, not replayed', async () => {
        const o = owner();
        const url = freshUrl();
        await h.rpc.createSite(request(o, url, ''));
        await expectApiError(h.rpc.createSite(request(o, url, 'key-4')), 'site_exists');
        expect(await recordOf(o.accountId, 'key-4')).toBeUndefined();
        await expectApiError(h.rpc.createSite(request(o, url, 'key-4')), 'site_exists');
      });

      test('while the first request runs: idempotency_conflict; a claim left by a dead process is taken over after 60 s', async () => {
        const o = owner();
        const url = freshUrl();
        const fingerprint = fingerprintOf({ url, timezone: undefined, hobby: undefined });
        // a claim as a process that died mid-request leaves it
        await h.db.query(
          `INSERT INTO sites.idempotency_records (account_id, idempotency_key, fingerprint, state, claim_token, claimed_at, expires_at)
           VALUES ($1, 'key-5', $2, 'running', 'dead-process-token', $3, $4)`,
          [o.accountId, fingerprint, h.time.now(), new Date(h.time.now().getTime() + DAY)],
        );
        await expectApiError(h.rpc.createSite(request(o, url, 'key-5')), 'idempotency_conflict', /still running/);
        await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'key-5')), 'idempotency_conflict', /different request/);
        h.time.advance(MINUTE - 1_000);
        await expectApiError(h.rpc.createSite(request(o, url, 'key-5')), 'idempotency_conflict', /still running/);
        h.time.advance(1_000);
        const taken = await h.rpc.createSite(request(o, url, 'key-5'));
        expect(taken).toMatchObject({ status: 201, replayed: false });
        await expect(h.rpc.createSite(request(o, url, 'key-5'))).resolves.toEqual({ ...taken, replayed: true });
        // the dead process, were it to come back, could not complete its claim any more
        const { rows } = await h.db.query<{ claim_token: string }>("SELECT claim_token FROM sites.idempotency_records WHERE account_id = $1 AND idempotency_key = 'key-5'", [o.accountId]);
        expect(rows[0]!.claim_token).not.toBe('dead-process-token');
      });

      test('after 24 hours the key is free again', async () => {
        const o = owner();
        await h.rpc.createSite(request(o, freshUrl(), 'key-6'));
        h.time.advance(DAY - 1_000);
        await expectApiError(h.rpc.createSite(request(o, freshUrl(), 'key-6')), 'idempotency_conflict');
        h.time.advance(1_000);
        await expect(h.rpc.createSite(request(o, freshUrl(), 'key-6'))).resolves.toMatchObject({ status: 201, replayed: false });
        expect(await sitesOf(o.accountId)).toHaveLength(2);
      });

      test('when storing the answer fails, nothing is created and the key is released; a retry succeeds', async () => {
        const o = owner();
        const url = freshUrl();
        // completing a record fails for real: a constraint the completion violates
        await h.db.query("ALTER TABLE sites.idempotency_records ADD CONSTRAINT test_completion_broken CHECK (state = 'running') NOT VALID");
        try {
          await expectApiError(h.rpc.createSite(request(o, url, 'key-7')), 'internal');
        } finally {
          await h.db.query('ALTER TABLE sites.idempotency_records DROP CONSTRAINT test_completion_broken');
        }
        expect(await sitesOf(o.accountId)).toEqual([]);
        expect((await h.db.query('SELECT 1 FROM sites.audit_log WHERE account_id = $1', [o.accountId])).rowCount).toBe(0);
        expect(await recordOf(o.accountId, 'key-7')).toBeUndefined();
        const retry = await h.rpc.createSite(request(o, url, 'key-7'));
        expect(retry).toMatchObject({ status: 201, replayed: false, site: { name: url } });
        await expect(h.rpc.createSite(request(o, url, 'key-7'))).resolves.toEqual({ ...retry, replayed: true });
        expect(await recordOf(o.accountId, 'key-7')).toEqual({ state: 'completed' });
      });

      test('20 parallel identical requests create exactly one site; the others replay it or get idempotency_conflict', async () => {
        const o = owner();
        const url = freshUrl();
        const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.rpc.createSite(request(o, url, 'key-parallel'))));
        const sites = await sitesOf(o.accountId);
        expect(sites).toHaveLength(1);
        const won = results.filter((r): r is PromiseFulfilledResult<sitesV1.CreateSiteResponse> => r.status === 'fulfilled').map((r) => r.value);
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        console.info(`[idempotency] 20 parallel on ${h.db.kind}: ${won.filter((w) => !w.replayed).length} created, ${won.filter((w) => w.replayed).length} replayed, ${lost.length} idempotency_conflict`);
        expect(won.length).toBeGreaterThanOrEqual(1);
        expect(won.filter((w) => !w.replayed)).toHaveLength(1);
        for (const answer of won) expect(answer.site!.siteId).toBe(sites[0]!.id);
        expect(lost.map((r) => (r.reason as { code: string }).code)).toEqual(Array(lost.length).fill('idempotency_conflict'));
        const resend = await h.rpc.createSite(request(o, url, 'key-parallel'));
        expect(resend).toMatchObject({ status: 201, replayed: true, site: { siteId: sites[0]!.id } });
        expect(await auditActions(sites[0]!.id)).toEqual(['site.create']);
      });

      test('20 parallel identical requests without a key: one site, the rest site_exists', async () => {
        const o = owner();
        const url = freshUrl();
        const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.rpc.createSite(request(o, url, ''))));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const codes = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as { code: string }).code);
        expect(codes).toEqual(Array(19).fill('site_exists'));
        expect(await sitesOf(o.accountId)).toHaveLength(1);
      });
    });

    describe('reach', () => {
      test('unknown_site for a missing and a foreign site is the same answer', async () => {
        const o = owner();
        const foreign = await create(owner());
        const missing = await expectApiError(h.rpc.getSite({ actor: o, siteId: 999_999_999 }), 'unknown_site');
        const theirs = await expectApiError(h.rpc.getSite({ actor: o, siteId: foreign.siteId }), 'unknown_site');
        expect(theirs.message).toBe(missing.message);
        expect(theirs.message).toBe(UNKNOWN_SITE_MESSAGE);
        await expectApiError(h.rpc.getSite({ actor: o, siteId: 0 }), 'unknown_site', UNKNOWN_SITE_MESSAGE);
      });

      test('every per-site RPC × {foreign site, missing id, single-site key on a sibling site, member role}', async () => {
        await reachMatrix(h);
      }, 120_000);
    });
  });
}
