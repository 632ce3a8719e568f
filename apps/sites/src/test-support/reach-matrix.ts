import { expect } from 'vitest';
import type { ErrorCode } from '@sightline/errors';
import type { commonV1 } from '@sightline/proto';
import type { Access } from '../access/reach.js';
import { UNKNOWN_SITE_MESSAGE } from '../access/reach.js';
import { expectApiError } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, freshUrl, type SitesHarness } from './sites-harness.js';

interface Fixtures {
  goalIds: [number, number];
  spareGoalId: number;
  funnelId: number;
  spareMemberId: number;
  annotationId: number;
  spareAnnotationId: number;
}

interface Op {
  name: string;
  access: Access;
  call(actor: commonV1.Actor, siteId: number, f: Fixtures): Promise<unknown>;
}

let n = 0;
const OPS: Op[] = [
  { name: 'GetSite', access: 'read', call: (actor, siteId) => rpc.getSite({ actor, siteId }) },
  { name: 'UpdateSite', access: 'manage', call: (actor, siteId) => rpc.updateSite({ actor, audit: auditContext(), siteId, timezone: 'UTC', weekStart: 6 }) },
  { name: 'DeleteSite', access: 'own', call: (actor, siteId) => rpc.deleteSite({ actor, audit: auditContext(), siteId }) },
  { name: 'ListMembers', access: 'manage', call: (actor, siteId) => rpc.listMembers({ actor, siteId }) },
  {
    name: 'AddMember',
    access: 'manage',
    call: (actor, siteId) => rpc.addMember({ actor, audit: auditContext(), siteId, accountId: freshAccountId(), email: 'new@mail.test', role: 'member' }),
  },
  {
    name: 'RemoveMember',
    access: 'manage',
    call: (actor, siteId, f) => rpc.removeMember({ actor, audit: auditContext(), siteId, accountId: f.spareMemberId }),
  },
  { name: 'ListGoals', access: 'read', call: (actor, siteId) => rpc.listGoals({ actor, siteId }) },
  { name: 'CreateGoal', access: 'manage', call: (actor, siteId) => rpc.createGoal({ actor, audit: auditContext(), siteId, eventName: `matrix-${++n}` }) },
  { name: 'DeleteGoal', access: 'manage', call: (actor, siteId, f) => rpc.deleteGoal({ actor, audit: auditContext(), siteId, goalId: f.spareGoalId }) },
  { name: 'ListFunnels', access: 'read', call: (actor, siteId) => rpc.listFunnels({ actor, siteId }) },
  {
    name: 'CreateFunnel',
    access: 'manage',
    call: (actor, siteId, f) => rpc.createFunnel({ actor, audit: auditContext(), siteId, name: `matrix-${++n}`, steps: f.goalIds }),
  },
  { name: 'GetFunnel', access: 'read', call: (actor, siteId, f) => rpc.getFunnel({ actor, siteId, funnelId: f.funnelId }) },
  { name: 'DeleteFunnel', access: 'manage', call: (actor, siteId, f) => rpc.deleteFunnel({ actor, audit: auditContext(), siteId, funnelId: f.funnelId }) },
  {
    name: 'ListAnnotations',
    access: 'read',
    call: (actor, siteId) => rpc.listAnnotations({ actor, siteId, window: { from: '2026-01-01', to: '2026-12-31', limit: 0, cursor: '' } }),
  },
  {
    name: 'CreateAnnotation',
    access: 'manage',
    call: (actor, siteId) => rpc.createAnnotation({ actor, audit: auditContext(), siteId, date: '2026-05-01', text: `matrix-${++n}` }),
  },
  {
    name: 'UpdateAnnotation',
    access: 'manage',
    call: (actor, siteId, f) => rpc.updateAnnotation({ actor, audit: auditContext(), siteId, annotationId: f.annotationId, text: `matrix-${++n}` }),
  },
  {
    name: 'DeleteAnnotation',
    access: 'manage',
    call: (actor, siteId, f) => rpc.deleteAnnotation({ actor, audit: auditContext(), siteId, annotationId: f.spareAnnotationId }),
  },
  { name: 'ListAudit', access: 'manage', call: (actor, siteId) => rpc.listAudit({ actor, siteId, limit: 0, cursor: '' }) },
  { name: 'GetWidgetKey', access: 'read', call: (actor, siteId) => rpc.getWidgetKey({ actor, siteId }) },
  { name: 'RotateWidgetKey', access: 'manage', call: (actor, siteId) => rpc.rotateWidgetKey({ actor, audit: auditContext(), siteId }) },
];
let rpc: SitesHarness['rpc'];

/** Everything a refused call could have changed on a site. */
async function snapshot(h: SitesHarness, siteId: number): Promise<unknown> {
  const q = async (sql: string) => (await h.db.query(sql, [siteId])).rows;
  return {
    site: await q('SELECT * FROM sites.sites WHERE id = $1'),
    members: await q('SELECT * FROM sites.site_members WHERE site_id = $1 ORDER BY account_id'),
    goals: await q('SELECT * FROM sites.goals WHERE site_id = $1 ORDER BY id'),
    funnels: await q('SELECT * FROM sites.funnels WHERE site_id = $1 ORDER BY id'),
    annotations: await q('SELECT * FROM sites.annotations WHERE site_id = $1 ORDER BY id'),
    steps: await q(
      'SELECT fs.* FROM sites.funnel_steps fs JOIN sites.funnels f ON f.id = fs.funnel_id WHERE f.site_id = $1 ORDER BY fs.funnel_id, fs.position',
    ),
    audit: await q('SELECT id FROM sites.audit_log WHERE site_id = $1 ORDER BY id'),
    outbox: await q("SELECT id FROM sites.outbox WHERE (payload->>'site_id')::bigint = $1"),
    widgetKey: await q('SELECT * FROM sites.widget_keys WHERE site_id = $1'),
  };
}

/**
 * Every per-site RPC against a target site, as callers who must be refused —
 * another account (all-sites key and single-site key), a missing id, a
 * single-site key of the owner for a sibling site, a member (and an admin for
 * deletion) — then as callers who may read. The target is unchanged afterwards.
 */
export async function reachMatrix(h: SitesHarness): Promise<void> {
  rpc = h.rpc;
  const owner = actorFor(freshAccountId());
  const create = async (actor: commonV1.Actor) => (await rpc.createSite({ actor, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).site!;
  const target = await create(owner);
  const sibling = await create(owner);
  const stranger = actorFor(freshAccountId());
  const strangersSite = await create(stranger);
  const member = actorFor(freshAccountId());
  const admin = actorFor(freshAccountId());
  const spareMember = freshAccountId();
  for (const [accountId, role] of [
    [member.accountId, 'member'],
    [admin.accountId, 'admin'],
    [spareMember, 'member'],
  ] as const) {
    await rpc.addMember({ actor: owner, audit: auditContext(), siteId: target.siteId, accountId, email: `x${accountId}@mail.test`, role });
  }
  const g1 = await rpc.createGoal({ actor: owner, audit: auditContext(), siteId: target.siteId, eventName: 'one' });
  const g2 = await rpc.createGoal({ actor: owner, audit: auditContext(), siteId: target.siteId, eventName: 'two' });
  const spare = await rpc.createGoal({ actor: owner, audit: auditContext(), siteId: target.siteId, eventName: 'spare' });
  const funnel = await rpc.createFunnel({ actor: owner, audit: auditContext(), siteId: target.siteId, name: 'F', steps: [g1.goalId, g2.goalId] });
  const note = await rpc.createAnnotation({ actor: owner, audit: auditContext(), siteId: target.siteId, date: '2026-05-01', text: 'note' });
  const spareNote = await rpc.createAnnotation({
    actor: owner,
    audit: auditContext(),
    siteId: target.siteId,
    datetime: '2026-05-02T10:00:00Z',
    text: 'spare note',
  });
  const f: Fixtures = {
    goalIds: [g1.goalId, g2.goalId],
    spareGoalId: spare.goalId,
    funnelId: funnel.funnelId,
    spareMemberId: spareMember,
    annotationId: note.annotationId,
    spareAnnotationId: spareNote.annotationId,
  };
  const before = await snapshot(h, target.siteId);

  const refusals: Array<{ who: string; actor: commonV1.Actor; siteId: number; expect: (op: Op) => ErrorCode | null }> = [
    { who: 'another account, all-sites key', actor: stranger, siteId: target.siteId, expect: () => 'unknown_site' },
    {
      who: 'another account, single-site key of its own site',
      actor: { ...stranger, siteId: strangersSite.siteId },
      siteId: target.siteId,
      expect: () => 'unknown_site',
    },
    { who: 'the owner, a missing id', actor: owner, siteId: 999_999_999, expect: () => 'unknown_site' },
    { who: 'the owner, single-site key of a sibling site', actor: { ...owner, siteId: sibling.siteId }, siteId: target.siteId, expect: () => 'key_not_scoped' },
    {
      who: 'a member, single-site key of a site its account does not reach',
      actor: { ...member, siteId: sibling.siteId },
      siteId: target.siteId,
      expect: () => 'key_not_scoped',
    },
    { who: 'a member', actor: member, siteId: target.siteId, expect: (op) => (op.access === 'read' ? null : 'not_site_owner') },
    {
      who: 'a member, single-site key of this site',
      actor: { ...member, siteId: target.siteId },
      siteId: target.siteId,
      expect: (op) => (op.access === 'read' ? null : 'not_site_owner'),
    },
    { who: 'an admin', actor: admin, siteId: target.siteId, expect: (op) => (op.access === 'own' ? 'not_site_owner' : null) },
  ];

  let checked = 0;
  for (const row of refusals) {
    for (const op of OPS) {
      const code = row.expect(op);
      if (code === null) continue;
      const error = await expectApiError(op.call(row.actor, row.siteId, f), code).catch((e: unknown) => {
        throw new Error(`${op.name} as ${row.who}: ${(e as Error).message}`);
      });
      if (code === 'unknown_site') expect(error.message, `${op.name} as ${row.who}`).toBe(UNKNOWN_SITE_MESSAGE);
      checked += 1;
    }
  }
  expect(checked).toBe(5 * OPS.length + 2 * OPS.filter((op) => op.access !== 'read').length + 1);
  expect(await snapshot(h, target.siteId)).toEqual(before);

  // who may read does read, the single-site key of the site included
  for (const actor of [member, { ...member, siteId: target.siteId }, { ...owner, siteId: target.siteId }, admin]) {
    for (const op of OPS.filter((o) => o.access === 'read')) await op.call(actor, target.siteId, f);
  }
  // the owner's single-site key of this very site can do everything, deletion last
  const scoped = { ...owner, siteId: target.siteId };
  const last = ['DeleteGoal', 'DeleteSite'];
  for (const op of [...OPS.filter((o) => !last.includes(o.name)), ...last.map((name) => OPS.find((o) => o.name === name)!)]) {
    await op.call(scoped, target.siteId, f);
  }
  await expectApiError(rpc.getSite({ actor: owner, siteId: target.siteId }), 'unknown_site');
}
