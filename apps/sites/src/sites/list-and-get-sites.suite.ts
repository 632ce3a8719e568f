import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { auditContext, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** ListSites and GetSite: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function listAndGetSitesSuite(suite: SitesSuite): void {
  const { test, owner, create, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

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

    test('GetSiteByHash finds the site its share hash names with its goals, and nothing else', async () => {
      const o = owner();
      const site = await create(o);
      const other = await create(o);
      const goal = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Signup' });
      await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'Other' });
      await expect(h.rpc.getSiteByHash({ hash: site.hash })).resolves.toEqual({ site, goals: [goal] });
      await expect(h.rpc.getSiteByHash({ hash: other.hash })).resolves.toMatchObject({ site: other, goals: [{ eventName: 'Other' }] });
      // the tracking key is public too, but it is not a share hash
      for (const hash of [
        site.trackingKey,
        'Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9',
        'short',
        "x' OR 1=1 --",
        '',
        site.hash.toLowerCase() === site.hash ? site.hash.toUpperCase() : site.hash.toLowerCase(),
      ]) {
        await expectApiError(h.rpc.getSiteByHash({ hash }), 'unknown_site');
      }
    });
  });
}
