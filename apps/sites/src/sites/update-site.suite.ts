import { beforeAll, describe, expect } from 'vitest';
import type { sitesV1 } from '@sightline/proto';
import { expectApiError, MINUTE } from '@sightline/testkit';
import { auditContext, DEFAULT_TZ, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** UpdateSite: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function updateSiteSuite(suite: SitesSuite): void {
  const { test, owner, create, auditActions, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('UpdateSite', () => {
    test('changes timezone, week_start and url; token, hash and owner stay; audited with the changes', async () => {
      const o = owner();
      const site = await create(o, 'https://before.example.com');
      h.time.advance(MINUTE);
      const updated = await h.rpc.updateSite({
        actor: o,
        audit: auditContext('req_update'),
        siteId: site.siteId,
        url: 'https://After.example.com/',
        timezone: 'asia/tokyo',
        weekStart: 0,
      });
      expect(updated).toEqual({ ...site, name: 'https://after.example.com', timezone: 'Asia/Tokyo', weekStart: 0 });
      await expect(h.rpc.getSite({ actor: o, siteId: site.siteId })).resolves.toEqual({ site: updated, role: 'owner' });
      const { rows } = await h.db.query<{ details: unknown; request_id: string }>(
        "SELECT details, request_id FROM sites.audit_log WHERE site_id = $1 AND action = 'site.update'",
        [site.siteId],
      );
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
      expect((await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: a.siteId, url: 'https://taken.example.com/' })).name).toBe(
        'https://taken.example.com',
      );
      const other = owner();
      await create(other, 'https://theirs.example.com');
      expect((await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: b.siteId, url: 'https://theirs.example.com' })).name).toBe(
        'https://theirs.example.com',
      );
    });

    test('a hobby site keeps a qualifying host', async () => {
      const o = owner();
      const site = await create(o, 'https://old.github.io', { hobby: true });
      await expectApiError(h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, url: 'https://example.com' }), 'invalid_request', /hobby/);
      await expectApiError(h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, url: 'https://github.io' }), 'invalid_request', /hobby/);
      expect(await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, url: 'https://new.pages.dev' })).toMatchObject({
        name: 'https://new.pages.dev',
        hobby: true,
      });
      // a paid site may move anywhere allowed
      const paid = await create(o, 'https://paid.github.io');
      expect((await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: paid.siteId, url: 'https://paid.example.com' })).name).toBe(
        'https://paid.example.com',
      );
    });

    test('owner and admin may update; a member may not', async () => {
      const { admin, member, site } = await sharedSite();
      expect((await h.rpc.updateSite({ actor: admin, audit: auditContext(), siteId: site.siteId, weekStart: 3 })).weekStart).toBe(3);
      await expectApiError(h.rpc.updateSite({ actor: member, audit: auditContext(), siteId: site.siteId, weekStart: 4 }), 'not_site_owner');
      expect((await h.rpc.getSite({ actor: member, siteId: site.siteId })).site!.weekStart).toBe(3);
    });
  });
}
