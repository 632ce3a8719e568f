import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { GOAL_COLUMNS, goalNotFound, toGoal, type GoalRow } from '../goals/goals.js';
import { LIMITS } from '../limits.js';
import { isUniqueViolation } from '../sites/site-errors.js';
import type { SitesContext } from '../sites-context.js';
import { positiveId, requiredText } from '../text-input.js';
import { rfc3339 } from '@sightline/runtime';

interface FunnelRow {
  id: number;
  site_id: number;
  name: string;
  created_at: Date;
}

const unknownFunnel = (funnelId: number) => new ApiError('unknown_funnel', `No funnel ${funnelId} on this site.`);
const funnelExists = (name: string) => new ApiError('funnel_exists', `This site already has a funnel named "${name}" (names are compared ignoring case).`);

/** The funnels (all of the site, or the given ones) with their steps as goals, in step order. */
async function loadFunnels(q: Queryable, siteId: number, funnelId?: number): Promise<sitesV1.Funnel[]> {
  const { rows: funnels } = await q.query<FunnelRow>(
    'SELECT id, site_id, name, created_at FROM sites.funnels WHERE site_id = $1 AND ($2::bigint IS NULL OR id = $2::bigint) ORDER BY id',
    [siteId, funnelId ?? null],
  );
  if (funnels.length === 0) return [];
  const { rows: steps } = await q.query<GoalRow & { funnel_id: number }>(
    `SELECT fs.funnel_id, ${GOAL_COLUMNS.split(', ')
      .map((c) => `g.${c}`)
      .join(', ')}
       FROM sites.funnel_steps fs
       JOIN sites.funnels f ON f.id = fs.funnel_id
       JOIN sites.goals g ON g.id = fs.goal_id
      WHERE f.site_id = $1 AND ($2::bigint IS NULL OR f.id = $2::bigint)
      ORDER BY fs.funnel_id, fs.position`,
    [siteId, funnelId ?? null],
  );
  return funnels.map((f) => ({
    funnelId: f.id,
    siteId: f.site_id,
    name: f.name,
    steps: steps.filter((s) => s.funnel_id === f.id).map(({ funnel_id: _unused, ...goal }) => toGoal(goal)),
    createdAt: rfc3339(f.created_at),
  }));
}

export async function listFunnels(ctx: SitesContext, request: sitesV1.ListFunnelsRequest): Promise<sitesV1.ListFunnelsResponse> {
  const actor = actorOf(request.actor);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'read');
  return { funnels: await loadFunnels(ctx.db, site.id) };
}

export async function getFunnel(ctx: SitesContext, request: sitesV1.GetFunnelRequest): Promise<sitesV1.Funnel> {
  const actor = actorOf(request.actor);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'read');
  const funnelId = positiveId(request.funnelId);
  const funnel = funnelId === null ? undefined : (await loadFunnels(ctx.db, site.id, funnelId))[0];
  if (!funnel) throw unknownFunnel(request.funnelId);
  return funnel;
}

/** 2..8 distinct goals of this site, in order. Count and duplicates are checked before the goals exist (400 before 404). */
function stepsOf(raw: readonly number[]): number[] {
  if (raw.length < LIMITS.funnelStepsMin || raw.length > LIMITS.funnelStepsMax) {
    throw new ApiError('invalid_request', `A funnel has ${LIMITS.funnelStepsMin} to ${LIMITS.funnelStepsMax} steps (goal ids); ${raw.length} given.`);
  }
  if (new Set(raw).size !== raw.length) throw new ApiError('invalid_request', 'Each goal may appear once in a funnel: steps has duplicates.');
  return [...raw];
}

export async function createFunnel(ctx: SitesContext, request: sitesV1.CreateFunnelRequest, call: CallContext): Promise<sitesV1.Funnel> {
  const actor = writerOf(request.actor);
  const name = requiredText('name', request.name, LIMITS.nameLength);
  const steps = stepsOf(request.steps);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const { rows: goals } = await tx.query<{ id: number }>('SELECT id FROM sites.goals WHERE site_id = $1 AND id = ANY($2::bigint[])', [
      site.id,
      steps.filter((id) => positiveId(id) !== null),
    ]);
    const known = new Set(goals.map((g) => g.id));
    const missing = steps.find((id) => !known.has(id));
    if (missing !== undefined) throw goalNotFound(missing);
    const { rows: counts } = await tx.query<{ total: number; same: number }>(
      'SELECT count(*) AS total, count(*) FILTER (WHERE lower(name) = lower($2)) AS same FROM sites.funnels WHERE site_id = $1',
      [site.id, name],
    );
    if (Number(counts[0]!.same) > 0) throw funnelExists(name);
    if (Number(counts[0]!.total) >= LIMITS.funnelsPerSite) {
      throw new ApiError('invalid_request', `Site ${site.id} already has ${LIMITS.funnelsPerSite} funnels, the most a site may have; delete one first.`);
    }
    try {
      const { rows } = await tx.query<{ id: number }>('INSERT INTO sites.funnels (site_id, name, created_at) VALUES ($1, $2, $3) RETURNING id', [
        site.id,
        name,
        now,
      ]);
      const id = rows[0]!.id;
      await tx.query(
        'INSERT INTO sites.funnel_steps (funnel_id, position, goal_id) SELECT $1, s.position, s.goal_id FROM unnest($2::bigint[]) WITH ORDINALITY AS s(goal_id, position)',
        [id, steps],
      );
      await recordAudit(tx, source, 'funnel.create', site.id, { funnel_id: id, name, steps }, now);
      return (await loadFunnels(tx, site.id, id))[0]!;
    } catch (error) {
      if (isUniqueViolation(error, 'funnels_site_name')) throw funnelExists(name);
      throw error;
    }
  });
}

export async function deleteFunnel(ctx: SitesContext, request: sitesV1.DeleteFunnelRequest, call: CallContext): Promise<sitesV1.DeleteFunnelResponse> {
  const actor = writerOf(request.actor);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const funnelId = positiveId(request.funnelId);
    const { rows } =
      funnelId === null
        ? { rows: [] as FunnelRow[] }
        : await tx.query<FunnelRow>('SELECT id, site_id, name, created_at FROM sites.funnels WHERE id = $1 AND site_id = $2', [funnelId, site.id]);
    const funnel = rows[0];
    if (!funnel) throw unknownFunnel(request.funnelId);
    await tx.query('DELETE FROM sites.funnel_steps WHERE funnel_id = $1', [funnel.id]);
    await tx.query('DELETE FROM sites.funnels WHERE id = $1', [funnel.id]);
    await recordAudit(tx, source, 'funnel.delete', site.id, { funnel_id: funnel.id, name: funnel.name }, now);
  });
  return {};
}
