import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { LIMITS } from '../limits.js';
import { isUniqueViolation } from '../sites/site-errors.js';
import type { SitesContext } from '../sites-context.js';
import { positiveId, requiredText } from '../text-input.js';
import { rfc3339 } from '@sightline/runtime';

export interface GoalRow {
  id: number;
  site_id: number;
  event_name: string | null;
  page_path: string | null;
  display_name: string;
  created_at: Date;
}

export const GOAL_COLUMNS = 'id, site_id, event_name, page_path, display_name, created_at';

export const toGoal = (row: GoalRow): sitesV1.Goal => ({
  goalId: row.id,
  siteId: row.site_id,
  eventName: row.event_name ?? undefined,
  pagePath: row.page_path ?? undefined,
  displayName: row.display_name,
  createdAt: rfc3339(row.created_at),
});

export const goalNotFound = (goalId: number): ApiError => new ApiError('goal_not_found', `No goal ${goalId} on this site.`);

interface GoalInput {
  eventName: string | null;
  pagePath: string | null;
  displayName: string;
}

/** Exactly one of event_name / page_path; page paths start with `/` and may hold `*` wildcards. */
function goalInputOf(request: sitesV1.CreateGoalRequest): GoalInput {
  const hasEvent = request.eventName !== undefined;
  const hasPath = request.pagePath !== undefined;
  if (hasEvent === hasPath) {
    throw new ApiError('invalid_request', 'A goal is either an event goal (event_name) or a page goal (page_path): send exactly one of them.');
  }
  let eventName: string | null = null;
  let pagePath: string | null = null;
  if (hasEvent) {
    eventName = requiredText('event_name', request.eventName, LIMITS.eventNameLength);
  } else {
    pagePath = requiredText('page_path', request.pagePath, LIMITS.pagePathLength);
    if (!pagePath.startsWith('/')) throw new ApiError('invalid_request', 'page_path must start with / (e.g. /signup, /blog/*).');
    if (/\s/.test(pagePath)) throw new ApiError('invalid_request', 'page_path must not contain whitespace.');
    if ((pagePath.match(/\*+/g)?.length ?? 0) > LIMITS.pagePathWildcards) {
      throw new ApiError('invalid_request', `page_path may hold at most ${LIMITS.pagePathWildcards} wildcards (a run of * counts as one).`);
    }
  }
  let displayName: string;
  if (request.displayName !== undefined) {
    displayName = requiredText('display_name', request.displayName, LIMITS.nameLength);
  } else {
    displayName = eventName ?? `Visit ${pagePath}`;
    if (displayName.length > LIMITS.nameLength) {
      throw new ApiError(
        'invalid_request',
        `The default display_name ("Visit <page_path>") would exceed ${LIMITS.nameLength} characters; send a display_name.`,
      );
    }
  }
  return { eventName, pagePath, displayName };
}

const goalExists = (name: string) => new ApiError('goal_exists', `This site already has a goal named "${name}" (names are compared ignoring case).`);

export async function listGoals(ctx: SitesContext, request: sitesV1.ListGoalsRequest): Promise<sitesV1.ListGoalsResponse> {
  const actor = actorOf(request.actor);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'read');
  const { rows } = await ctx.db.query<GoalRow>(`SELECT ${GOAL_COLUMNS} FROM sites.goals WHERE site_id = $1 ORDER BY id`, [site.id]);
  return { goals: rows.map(toGoal) };
}

export async function createGoal(ctx: SitesContext, request: sitesV1.CreateGoalRequest, call: CallContext): Promise<sitesV1.Goal> {
  const actor = writerOf(request.actor);
  const input = goalInputOf(request);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  const row = await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const { rows: counts } = await tx.query<{ total: number; same: number }>(
      'SELECT count(*) AS total, count(*) FILTER (WHERE lower(display_name) = lower($2)) AS same FROM sites.goals WHERE site_id = $1',
      [site.id, input.displayName],
    );
    if (Number(counts[0]!.same) > 0) throw goalExists(input.displayName);
    if (Number(counts[0]!.total) >= LIMITS.goalsPerSite) {
      throw new ApiError('invalid_request', `Site ${site.id} already has ${LIMITS.goalsPerSite} goals, the most a site may have; delete one first.`);
    }
    try {
      const { rows } = await tx.query<GoalRow>(
        `INSERT INTO sites.goals (site_id, event_name, page_path, display_name, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${GOAL_COLUMNS}`,
        [site.id, input.eventName, input.pagePath, input.displayName, now],
      );
      const goal = rows[0]!;
      await recordAudit(
        tx,
        source,
        'goal.create',
        site.id,
        { goal_id: goal.id, event_name: goal.event_name, page_path: goal.page_path, display_name: goal.display_name },
        now,
      );
      return goal;
    } catch (error) {
      if (isUniqueViolation(error, 'goals_site_display_name')) throw goalExists(input.displayName);
      throw error;
    }
  });
  return toGoal(row);
}

/** The funnels of a site that use a goal, by name. */
async function funnelsUsing(tx: Queryable, goalId: number): Promise<string[]> {
  const { rows } = await tx.query<{ name: string }>(
    'SELECT DISTINCT f.name, f.id FROM sites.funnel_steps fs JOIN sites.funnels f ON f.id = fs.funnel_id WHERE fs.goal_id = $1 ORDER BY f.id',
    [goalId],
  );
  return rows.map((r) => r.name);
}

export async function deleteGoal(ctx: SitesContext, request: sitesV1.DeleteGoalRequest, call: CallContext): Promise<sitesV1.DeleteGoalResponse> {
  const actor = writerOf(request.actor);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const goalId = positiveId(request.goalId);
    if (goalId === null) throw goalNotFound(request.goalId);
    const { rows } = await tx.query<GoalRow>(`SELECT ${GOAL_COLUMNS} FROM sites.goals WHERE id = $1 AND site_id = $2`, [goalId, site.id]);
    const goal = rows[0];
    if (!goal) throw goalNotFound(goalId);
    const funnels = await funnelsUsing(tx, goal.id);
    if (funnels.length > 0) {
      const names = funnels.map((n) => `"${n}"`).join(', ');
      throw new ApiError(
        'goal_in_use',
        `Goal ${goal.id} is a step of the funnel${funnels.length > 1 ? 's' : ''} ${names}; delete ${funnels.length > 1 ? 'them' : 'it'} first.`,
      );
    }
    await tx.query('DELETE FROM sites.goals WHERE id = $1', [goal.id]);
    await recordAudit(
      tx,
      source,
      'goal.delete',
      site.id,
      { goal_id: goal.id, event_name: goal.event_name, page_path: goal.page_path, display_name: goal.display_name },
      now,
    );
  });
  return {};
}
