import { beforeAll, describe, expect } from 'vitest';
import { expectApiError } from '@sightline/testkit';
import { auditContext, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

/** funnels: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function funnelsSuite(suite: SitesSuite): void {
  const { test, owner, create, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  describe('funnels', () => {
    test('2..8 distinct goals of the site, steps returned in order as goals; list and get; audited', async () => {
      const { owner: o, member, site } = await sharedSite();
      const goals = [];
      for (const eventName of ['Visit', 'Cart', 'Pay']) goals.push(await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: site.siteId, eventName }));
      const funnel = await h.rpc.createFunnel({
        actor: o,
        audit: auditContext(),
        siteId: site.siteId,
        name: ' Checkout ',
        steps: [goals[2]!.goalId, goals[0]!.goalId, goals[1]!.goalId],
      });
      expect(funnel).toEqual({
        funnelId: expect.any(Number),
        siteId: site.siteId,
        name: 'Checkout',
        steps: [goals[2], goals[0], goals[1]],
        createdAt: h.time.now().toISOString(),
      });
      await expect(h.rpc.getFunnel({ actor: member, siteId: site.siteId, funnelId: funnel.funnelId })).resolves.toEqual(funnel);
      const second = await h.rpc.createFunnel({
        actor: o,
        audit: auditContext(),
        siteId: site.siteId,
        name: 'Short',
        steps: [goals[0]!.goalId, goals[1]!.goalId],
      });
      expect(await h.rpc.listFunnels({ actor: member, siteId: site.siteId })).toEqual({ funnels: [funnel, second] });
      const { rows } = await h.db.query<{ details: unknown }>(
        "SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'funnel.create' ORDER BY id",
        [site.siteId],
      );
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
      const [a, b] = [
        await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'a' }),
        await h.rpc.createGoal({ actor: o, audit: auditContext(), siteId: other.siteId, eventName: 'b' }),
      ];
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
      await expectApiError(
        h.rpc.createFunnel({ actor: o, audit: auditContext(), siteId: site.siteId, name: 'one more', steps: [a.goalId, b.goalId] }),
        'invalid_request',
        /100/,
      );
    });
  });
}
