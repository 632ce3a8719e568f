import { beforeAll, describe, expect } from 'vitest';
import type { sitesV1 } from '@sightline/proto';
import { expectApiError } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** audit trail: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function auditTrailSuite(suite: SitesSuite): void {
  const { test, owner, create, auditActions, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('audit trail', () => {
    test('every write, newest first, with key, ip, user agent, request id, time and details; owner and admins only', async () => {
      const { owner: o, admin, member, site } = await sharedSite();
      const g1 = await h.rpc.createGoal({
        actor: admin,
        audit: { ip: '2001:db8::1', userAgent: 'curl/8.5.0', requestId: 'req_goal' },
        siteId: site.siteId,
        eventName: 'A',
      });
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

      for (let i = 0; i < 50; i++)
        await h.db.query(
          "INSERT INTO sites.audit_log (action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details) VALUES ('goal.create', $1, $2, 'k', '', '', 'r', now(), '{}')",
          [site.siteId, o.accountId],
        );
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
}
