import { beforeAll, describe, expect } from 'vitest';
import type { sitesV1 } from '@sightline/proto';
import { expectApiError } from '@sightline/testkit';
import { auditContext, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** goals: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function goalsSuite(suite: SitesSuite): void {
  const { test, owner, create, auditActions, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('goals', () => {
    test('event and page goals, default display names, wildcards; listed in creation order to every role', async () => {
      const { owner: o, member, site } = await sharedSite();
      const event = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: ' Signup ' });
      expect(event).toEqual({
        goalId: expect.any(Number),
        siteId: site.siteId,
        eventName: 'Signup',
        pagePath: undefined,
        displayName: 'Signup',
        createdAt: h.time.now().toISOString(),
      });
      const page = await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath: '/thanks' });
      expect(page).toMatchObject({ eventName: undefined, pagePath: '/thanks', displayName: 'Visit /thanks' });
      const wildcard = await h.rpc.createGoal({
        actor: o,
        audit: auditContext(),
        siteId: site.siteId,
        pagePath: '/blog/**/comments/*',
        displayName: 'Commented',
      });
      expect(wildcard).toMatchObject({ pagePath: '/blog/**/comments/*', displayName: 'Commented' });
      expect(await h.rpc.listGoals({ actor: member, siteId: site.siteId })).toEqual({ goals: [event, page, wildcard] });
      const { rows } = await h.db.query<{ details: unknown }>("SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'goal.create' ORDER BY id", [
        site.siteId,
      ]);
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

    test('page_path holds at most 16 wildcards, a run of * counting once (issue 29: a hostile pattern is refused at creation)', async () => {
      const o = owner();
      const site = await create(o);
      const goal = (pagePath: string, displayName: string) => h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath, displayName });
      await expectApiError(goal(`/${'*a'.repeat(1000)}b`, 'Hostile'), 'invalid_request', /at most 16 wildcards/);
      await expectApiError(goal(`/${'*a'.repeat(17)}`, 'Seventeen'), 'invalid_request', /at most 16 wildcards/);
      expect((await goal(`/${'*a'.repeat(16)}`, 'Sixteen')).pagePath).toBe(`/${'*a'.repeat(16)}`);
      expect((await goal(`/${'**a'.repeat(16)}`, 'Sixteen runs')).pagePath).toBe(`/${'**a'.repeat(16)}`);
      expect((await h.rpc.listGoals({ actor: o, siteId: site.siteId })).goals.map((g) => g.displayName)).toEqual(['Sixteen', 'Sixteen runs']);
    });

    test('goal_exists on a display name the site has (ignoring case); another site may reuse it', async () => {
      const o = owner();
      const site = await create(o);
      await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'Signup' });
      await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'signup' }), 'goal_exists', /signup/);
      await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, pagePath: '/s', displayName: 'SIGNUP' }), 'goal_exists');
      const other = await create(o);
      await expect(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'Signup' })).resolves.toMatchObject({
        displayName: 'Signup',
      });
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
      await h.db.query(
        "INSERT INTO sites.goals (site_id, event_name, display_name, created_at) SELECT $1, 'e' || i, 'e' || i, now() FROM generate_series(1, 499) AS i",
        [site.siteId],
      );
      await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'last' });
      await expectApiError(h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName: 'one more' }), 'invalid_request', /500/);
    });
  });
}
