import { beforeAll, describe, expect } from 'vitest';
import type { commonV1, sitesV1 } from '@sightline/proto';
import { expectApiError } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** members: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function membersSuite(suite: SitesSuite): void {
  const { test, owner, create, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

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
      const { rows } = await h.db.query<{ details: Record<string, unknown> }>(
        "SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'member.add' ORDER BY id",
        [site.siteId],
      );
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
      await expectApiError(
        h.rpc.removeMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: freshAccountId() }),
        'invalid_request',
        /not a member/,
      );
      expect((await h.rpc.listMembers({ actor: o, siteId: site.siteId })).members).toHaveLength(1);
    });

    test('admins manage members but not admins, and may leave; a removed person no longer reaches the site', async () => {
      const { owner: o, admin, member, site } = await sharedSite();
      const other = actorFor(freshAccountId());
      const add = (actor: commonV1.Actor, accountId: number, role: string) =>
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
      const { rows } = await h.db.query<{ details: { account_id: number; role: string } }>(
        "SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'member.remove' ORDER BY id",
        [site.siteId],
      );
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
      await expect(
        h.rpc.addMember({ actor: o, audit: auditContext(), siteId: site.siteId, accountId: 900000001, email: 'bulk1@mail.test', role: 'admin' }),
      ).resolves.toMatchObject({ role: 'admin' });
    });
  });
}
