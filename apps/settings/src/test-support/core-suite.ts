import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS } from '@sightline/bus';
import { DAY, expectApiError, MINUTE } from '@sightline/testkit';
import { PRESETS, normalizeSelection } from '@sightline/tracker-features';
import { auditContext, freshSiteId, startSettingsHarness, type SettingsHarness } from './settings-harness.js';
import type { TestDb } from './test-databases.js';
import { waitFor } from './wait-for.js';

const STANDARD = normalizeSelection(PRESETS.standard);

/**
 * The settings contract over gRPC, written once and run on each database adapter
 * (PGlite in settings.pglite.test.ts, PostgreSQL in settings.postgres.test.ts).
 */
export function settingsCoreSuite(name: string, openDb: () => Promise<TestDb | undefined>): void {
  describe(name, () => {
    let testDb: TestDb | undefined;
    let h: SettingsHarness;

    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startSettingsHarness({ db: testDb.db });
    });
    afterAll(async () => {
      await h?.close();
      await testDb?.dispose();
    });

    const test = (title: string, fn: () => Promise<void>, timeout?: number) =>
      it(
        title,
        async ({ skip }) => {
          if (!testDb) skip();
          await fn();
        },
        timeout,
      );

    const outboxCount = async (siteId: number) =>
      Number((await h.db.query<{ n: string }>("SELECT count(*) AS n FROM settings.outbox WHERE (payload->>'site_id')::bigint = $1", [siteId])).rows[0]!.n);
    const audit = auditContext();

    describe('tracking', () => {
      test('a site with nothing stored has the standard selection, version 1', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.getTracking({ siteId })).toEqual({ siteId, version: 1, bundle: 'standard', enabled: STANDARD });
      });

      test('PUT replaces the selection wholesale, in catalogue order; each change increments the version', async () => {
        const siteId = freshSiteId();
        const first = await h.rpc.putTracking({ siteId, audit, features: ['utm', 'sessions', 'utm'] });
        expect(first).toEqual({ siteId, version: 2, bundle: 'custom', enabled: ['pageviews', 'sessions', 'utm'] });
        expect(await h.rpc.getTracking({ siteId })).toEqual(first);
        const second = await h.rpc.putTracking({ siteId, audit, features: [...PRESETS.full] });
        expect(second).toMatchObject({ version: 3, bundle: 'full' });
        const third = await h.rpc.putTracking({ siteId, audit, features: [...PRESETS.full] });
        expect(third.version).toBe(4);
      });

      test('locked features stay on; [] is valid and leaves only the locked ones', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.putTracking({ siteId, audit, features: [] })).toEqual({ siteId, version: 2, bundle: 'minimal', enabled: ['pageviews'] });
        expect((await h.rpc.putTracking({ siteId, audit, features: ['utm'] })).enabled).toEqual(['pageviews', 'utm']);
      });

      test('an unknown feature id → invalid_request naming it; nothing written', async () => {
        const siteId = freshSiteId();
        await expectApiError(h.rpc.putTracking({ siteId, audit, features: ['utm', 'heatmaps'] }), 'invalid_request', /"heatmaps"/);
        expect(await h.rpc.getTracking({ siteId })).toMatchObject({ version: 1, bundle: 'standard' });
        expect(await outboxCount(siteId)).toBe(0);
      });

      test('an unmet requirement → invalid_request naming the feature and its dependency', async () => {
        const siteId = freshSiteId();
        const error = await expectApiError(h.rpc.putTracking({ siteId, audit, features: ['scroll'] }), 'invalid_request');
        expect(error.message).toMatch(/scroll/);
        expect(error.message).toMatch(/engagement/);
        expect((await h.rpc.putTracking({ siteId, audit, features: ['scroll', 'engagement'] })).enabled).toEqual(['pageviews', 'engagement', 'scroll']);
      });

      test('bounds: too many entries, an overlong id, a bad site id, a missing audit', async () => {
        await expectApiError(h.rpc.putTracking({ siteId: freshSiteId(), audit, features: Array(101).fill('utm') }), 'invalid_request', /at most 100/);
        await expectApiError(h.rpc.putTracking({ siteId: freshSiteId(), audit, features: ['x'.repeat(101)] }), 'invalid_request');
        await expectApiError(h.rpc.getTracking({ siteId: 0 }), 'invalid_request', /site_id/);
        await expectApiError(h.rpc.putTracking({ siteId: freshSiteId(), audit: undefined, features: [] }), 'invalid_request', /audit/);
      });
    });

    describe('hostnames', () => {
      test('empty by default: both lists present as []', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: [] });
      });

      test('normalizes (lowercase, punycode, *. wildcard, duplicates) and answers the count; a PUT replaces both lists', async () => {
        const siteId = freshSiteId();
        const put = await h.rpc.putHostnames({
          siteId,
          audit,
          allowed: ['Example.COM', '*.Bücher.example', 'example.com'],
          blocked: ['staging.example.com'],
          siteHost: 'example.com',
          siteRecentlyActive: true,
        });
        expect(put).toEqual({ siteId, count: 3 });
        expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: ['example.com', '*.xn--bcher-kva.example'], blocked: ['staging.example.com'] });
        expect(await h.rpc.putHostnames({ siteId, audit, allowed: [], blocked: ['ads.test'], siteHost: '', siteRecentlyActive: false })).toEqual({ siteId, count: 1 });
        expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: ['ads.test'] });
      });

      test('refuses anything but plain hostnames: scheme, path, port, spaces, bare wildcard', async () => {
        for (const bad of ['https://example.com', 'example.com/path', 'example.com:8080', 'exa mple.com', '*', '*.', 'a..b', '-bad.com', 'foo.*.com', '']) {
          await expectApiError(
            h.rpc.putHostnames({ siteId: freshSiteId(), audit, allowed: [bad], blocked: [], siteHost: '', siteRecentlyActive: false }),
            'invalid_request',
          );
        }
        await expectApiError(
          h.rpc.putHostnames({ siteId: freshSiteId(), audit, allowed: [], blocked: Array.from({ length: 501 }, (_, i) => `h${i}.test`), siteHost: '', siteRecentlyActive: false }),
          'invalid_request',
          /at most 500/,
        );
        expect((await h.rpc.putHostnames({ siteId: freshSiteId(), audit, allowed: [], blocked: Array.from({ length: 500 }, (_, i) => `h${i}.test`), siteHost: '', siteRecentlyActive: false })).count).toBe(500);
      });

      test('site_domain_blocked when a recently active site would block its own host; nothing written', async () => {
        const siteId = freshSiteId();
        await h.rpc.putHostnames({ siteId, audit, allowed: [], blocked: ['old.test'], siteHost: 'shop.example.com', siteRecentlyActive: true });
        const before = await outboxCount(siteId);
        const attempts = [
          { allowed: [], blocked: ['shop.example.com'] },
          { allowed: [], blocked: ['*.example.com'] },
          { allowed: ['other.example.com'], blocked: [] },
          { allowed: ['SHOP.example.com'], blocked: ['Shop.Example.com'] },
        ];
        for (const lists of attempts) {
          await expectApiError(h.rpc.putHostnames({ siteId, audit, ...lists, siteHost: 'shop.example.com', siteRecentlyActive: true }), 'site_domain_blocked');
        }
        expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: ['old.test'] });
        expect(await outboxCount(siteId)).toBe(before);
        // allowed by wildcard, or not recently active: accepted
        expect((await h.rpc.putHostnames({ siteId, audit, allowed: ['*.example.com'], blocked: [], siteHost: 'shop.example.com', siteRecentlyActive: true })).count).toBe(1);
        expect((await h.rpc.putHostnames({ siteId, audit, allowed: [], blocked: ['shop.example.com'], siteHost: 'shop.example.com', siteRecentlyActive: false })).count).toBe(1);
      });
    });

    describe('blocked IPs', () => {
      test('addresses and CIDR ranges, normalized and deduplicated; GET answers {blocked_ips}', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.getBlockedIps({ siteId })).toEqual({ siteId, blockedIps: [] });
        const put = await h.rpc.putBlockedIps({ siteId, audit, blockedIps: ['203.0.113.9', '2001:DB8:0:0:0:0:0:1', '2001:db8::1', '10.0.0.0/8', '2001:db8::/32', ' 198.51.100.1 '] });
        expect(put).toEqual({ siteId, count: 5 });
        expect(await h.rpc.getBlockedIps({ siteId })).toEqual({ siteId, blockedIps: ['203.0.113.9', '2001:db8::1', '10.0.0.0/8', '2001:db8::/32', '198.51.100.1'] });
        expect(await h.rpc.putBlockedIps({ siteId, audit, blockedIps: [] })).toEqual({ siteId, count: 0 });
        expect(await h.rpc.getBlockedIps({ siteId })).toEqual({ siteId, blockedIps: [] });
      });

      test('refuses non-addresses and bad prefix lengths; at most 1000', async () => {
        for (const bad of ['example.com', '999.1.1.1', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/08', 'fe80::1%eth0', '1.2.3.4/-1']) {
          await expectApiError(h.rpc.putBlockedIps({ siteId: freshSiteId(), audit, blockedIps: [bad] }), 'invalid_request');
        }
        const many = Array.from({ length: 1001 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`);
        await expectApiError(h.rpc.putBlockedIps({ siteId: freshSiteId(), audit, blockedIps: many }), 'invalid_request', /at most 1000/);
        expect((await h.rpc.putBlockedIps({ siteId: freshSiteId(), audit, blockedIps: many.slice(0, 1000) })).count).toBe(1000);
      });
    });

    describe('countries', () => {
      test('codes are uppercased, validated, read back as {code, created_at}; created_at kept across PUTs that keep the code', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.getCountries({ siteId })).toEqual({ siteId, allowed: [], blocked: [] });
        const t1 = h.time.now().toISOString();
        expect(await h.rpc.putCountries({ siteId, audit, allowed: ['de', 'AT'], blocked: ['CN'] })).toEqual({ siteId, count: 3 });
        h.time.advance(DAY);
        const t2 = h.time.now().toISOString();
        expect(await h.rpc.putCountries({ siteId, audit, allowed: ['CH', 'DE'], blocked: ['CN', 'cn'] })).toEqual({ siteId, count: 3 });
        expect(await h.rpc.getCountries({ siteId })).toEqual({
          siteId,
          allowed: [
            { code: 'CH', createdAt: t2 },
            { code: 'DE', createdAt: t1 },
          ],
          blocked: [{ code: 'CN', createdAt: t1 }],
        });
        // a code moved to the other list starts again there
        h.time.advance(MINUTE);
        await h.rpc.putCountries({ siteId, audit, allowed: [], blocked: ['DE'] });
        expect(await h.rpc.getCountries({ siteId })).toEqual({ siteId, allowed: [], blocked: [{ code: 'DE', createdAt: h.time.now().toISOString() }] });
      });

      test('refuses unknown or malformed codes and more than 300', async () => {
        for (const bad of ['XX', 'EU', 'UK', 'DEU', 'd', '']) {
          await expectApiError(h.rpc.putCountries({ siteId: freshSiteId(), audit, allowed: [bad], blocked: [] }), 'invalid_request');
        }
        await expectApiError(h.rpc.putCountries({ siteId: freshSiteId(), audit, allowed: [], blocked: Array(301).fill('DE') }), 'invalid_request', /at most 300/);
      });
    });

    describe('counting filters (one read for ingest)', () => {
      test('empty lists for a site with nothing stored', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.getCountingFilters({ siteId })).toEqual({ siteId, allowedHostnames: [], blockedHostnames: [], blockedIps: [], allowedCountries: [], blockedCountries: [] });
      });

      test('all three filters as stored (normalized, in order), and only this site’s', async () => {
        const siteId = freshSiteId();
        const other = freshSiteId();
        await h.rpc.putHostnames({ siteId, audit, allowed: ['WWW.Example.com', '*.example.com'], blocked: ['staging.example.com'], siteHost: '', siteRecentlyActive: false });
        await h.rpc.putBlockedIps({ siteId, audit, blockedIps: ['2001:DB8::1', '10.0.0.0/8'] });
        await h.rpc.putCountries({ siteId, audit, allowed: ['de', 'AT'], blocked: ['CN'] });
        await h.rpc.putCountries({ siteId: other, audit, allowed: ['FR'], blocked: [] });
        expect(await h.rpc.getCountingFilters({ siteId })).toEqual({
          siteId,
          allowedHostnames: ['www.example.com', '*.example.com'],
          blockedHostnames: ['staging.example.com'],
          blockedIps: ['2001:db8::1', '10.0.0.0/8'],
          allowedCountries: ['DE', 'AT'],
          blockedCountries: ['CN'],
        });
        // a PUT replaces a filter wholesale; the others stay
        await h.rpc.putHostnames({ siteId, audit, allowed: [], blocked: [], siteHost: '', siteRecentlyActive: false });
        expect(await h.rpc.getCountingFilters({ siteId })).toMatchObject({ allowedHostnames: [], blockedHostnames: [], blockedIps: ['2001:db8::1', '10.0.0.0/8'], allowedCountries: ['DE', 'AT'] });
      });

      test('a bad site id → invalid_request', async () => {
        await expectApiError(h.rpc.getCountingFilters({ siteId: 0 }), 'invalid_request', /site_id/);
        await expectApiError(h.rpc.getCountingFilters({ siteId: -3 }), 'invalid_request', /site_id/);
      });
    });

    describe('public dashboard', () => {
      test('off by default; on and off for a non-hobby site', async () => {
        const siteId = freshSiteId();
        expect(await h.rpc.getPublicDashboard({ siteId, siteHobby: false, accountPaid: false })).toEqual({ siteId, enabled: false });
        expect(await h.rpc.putPublicDashboard({ siteId, audit, enabled: true, siteHobby: false, accountPaid: false })).toEqual({ siteId, enabled: true });
        expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: false, accountPaid: false })).enabled).toBe(true);
        expect(await h.rpc.putPublicDashboard({ siteId, audit, enabled: false, siteHobby: false, accountPaid: false })).toEqual({ siteId, enabled: false });
        expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: false, accountPaid: false })).enabled).toBe(false);
      });

      test('hobby without a paid subscription: false → 409 hobby_always_public, nothing changed, GET still true; true is never refused', async () => {
        const siteId = freshSiteId();
        expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: false })).enabled).toBe(true);
        await expectApiError(h.rpc.putPublicDashboard({ siteId, audit, enabled: false, siteHobby: true, accountPaid: false }), 'hobby_always_public');
        expect(await outboxCount(siteId)).toBe(0);
        expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: false })).enabled).toBe(true);
        expect((await h.rpc.putPublicDashboard({ siteId, audit, enabled: true, siteHobby: true, accountPaid: false })).enabled).toBe(true);
      });

      test('hobby with a paid subscription may hide it; when the subscription ends the GET reports true again, the stored flag is untouched', async () => {
        const siteId = freshSiteId();
        expect((await h.rpc.putPublicDashboard({ siteId, audit, enabled: false, siteHobby: true, accountPaid: true })).enabled).toBe(false);
        expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: true })).enabled).toBe(false);
        expect((await h.rpc.getPublicDashboard({ siteId, siteHobby: true, accountPaid: false })).enabled).toBe(true);
      });
    });

    describe('settings.changed outbox', () => {
      test('every write is announced once, through the relay, with its audit entry and a settings-outbox msgId', async () => {
        const siteId = freshSiteId();
        const a = auditContext(77, 'req_outbox');
        await h.rpc.putTracking({ siteId, audit: a, features: ['utm'] });
        await h.rpc.putHostnames({ siteId, audit: a, allowed: [], blocked: ['x.test'], siteHost: '', siteRecentlyActive: false });
        await h.rpc.putBlockedIps({ siteId, audit: a, blockedIps: ['10.0.0.1'] });
        await h.rpc.putCountries({ siteId, audit: a, allowed: ['DE'], blocked: [] });
        await h.rpc.putPublicDashboard({ siteId, audit: a, enabled: true, siteHobby: false, accountPaid: false });
        await h.instance.relay.flush();
        await waitFor(() => h.changed.filter((m) => m.site_id === siteId).length === 5);
        const mine = h.changed.filter((m) => m.site_id === siteId);
        expect(mine.map((m) => [m.kind, m.version, m.audit.action])).toEqual([
          ['tracking', 2, 'site.tracking.update'],
          ['hostnames', 0, 'site.hostnames.update'],
          ['blocked_ips', 0, 'site.blocked_ips.update'],
          ['countries', 0, 'site.countries.update'],
          ['public_dashboard', 0, 'site.public_dashboard.update'],
        ]);
        expect(mine[0]).toEqual({
          site_id: siteId,
          kind: 'tracking',
          version: 2,
          changed_at: h.time.now().toISOString(),
          audit: {
            action: 'site.tracking.update',
            account_id: 77,
            key_id: 'key_test77',
            ip: '203.0.113.7',
            user_agent: 'settings-test/1.0',
            request_id: 'req_outbox',
            details: { features: ['pageviews', 'utm'], version: 2 },
          },
          msgId: expect.stringMatching(/^settings-outbox-[0-9a-f-]{36}$/),
        });
        expect(new Set(mine.map((m) => m.msgId)).size).toBe(5);
        const { rows } = await h.db.query<{ n: string }>("SELECT count(*) AS n FROM settings.outbox WHERE (payload->>'site_id')::bigint = $1 AND published_at IS NULL", [siteId]);
        expect(Number(rows[0]!.n)).toBe(0);
      });
    });

    describe('site.deleted', () => {
      test("drops the site's settings; other sites keep theirs", async () => {
        const siteId = freshSiteId();
        const other = freshSiteId();
        for (const id of [siteId, other]) {
          await h.rpc.putTracking({ siteId: id, audit, features: [] });
          await h.rpc.putHostnames({ siteId: id, audit, allowed: ['a.test'], blocked: [], siteHost: '', siteRecentlyActive: false });
          await h.rpc.putBlockedIps({ siteId: id, audit, blockedIps: ['10.0.0.1'] });
          await h.rpc.putCountries({ siteId: id, audit, allowed: ['DE'], blocked: [] });
        }
        await h.bus.publish(SUBJECTS.siteDeleted, { site_id: siteId, account_id: 42, tracking_key: 'k', deleted_at: h.time.now().toISOString() }, { msgId: `test-deleted-${siteId}` });
        const remaining = async (id: number) => {
          let n = 0;
          for (const table of ['site_settings', 'hostname_filters', 'blocked_ips', 'country_filters']) {
            n += Number((await h.db.query<{ n: string }>(`SELECT count(*) AS n FROM settings.${table} WHERE site_id = $1`, [id])).rows[0]!.n);
          }
          return n;
        };
        await waitFor(async () => (await remaining(siteId)) === 0);
        expect(await h.rpc.getTracking({ siteId })).toMatchObject({ version: 1, bundle: 'standard' });
        expect(await h.rpc.getHostnames({ siteId })).toEqual({ siteId, allowed: [], blocked: [] });
        expect(await remaining(other)).toBe(4);
      });
    });

    describe('concurrency', () => {
      test('concurrent tracking PUTs on one site each get their own version', async () => {
        const siteId = freshSiteId();
        const answers = await Promise.all(Array.from({ length: 8 }, () => h.rpc.putTracking({ siteId, audit, features: ['utm'] })));
        expect(answers.map((a) => a.version).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
        expect((await h.rpc.getTracking({ siteId })).version).toBe(9);
      });
    });
  });
}
