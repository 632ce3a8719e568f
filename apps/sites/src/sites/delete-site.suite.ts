import { beforeAll, describe, expect } from 'vitest';
import { expectApiError, MINUTE, waitFor } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** DeleteSite: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function deleteSiteSuite(suite: SitesSuite): void {
  const { test, owner, create, auditActions, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

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
      const { rows } = await h.db.query<{ message_id: string; payload: unknown; published_at: Date | null }>(
        "SELECT message_id, payload, published_at FROM sites.outbox WHERE payload->>'tracking_key' = $1",
        [site.trackingKey],
      );
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
      expect((await h.db.query("SELECT 1 FROM sites.outbox WHERE (payload->>'site_id')::bigint = $1", [site.siteId])).rowCount).toBe(0);
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
}
