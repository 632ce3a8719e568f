import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { loadActingKey, requirePermission } from '../keys/acting-key.js';
import { addDays } from '@sightline/runtime';
import { PLAN_COLUMNS, planStateOf, type PlanRow } from './plan-state.js';

const SETTABLE_STATUSES = ['active', 'past_due', 'canceled'] as const;

export async function getPlan(ctx: IdentityContext, request: identityV1.GetPlanRequest): Promise<identityV1.PlanState> {
  const account = await loadAccount(ctx.db, request.accountId);
  return planStateOf(account, ctx.clock(), ctx.settings.planGraceDays);
}

/**
 * Starts the trial once (idempotent: a second call changes nothing). An account
 * that already has or had a subscription gets no trial: it is past trying out.
 */
export async function startTrial(ctx: IdentityContext, request: identityV1.StartTrialRequest): Promise<identityV1.PlanState> {
  const now = ctx.clock();
  await loadAccount(ctx.db, request.accountId);
  const { rows } = await ctx.db.query<PlanRow>(
    `UPDATE identity.accounts SET trial_started_at = $2, trial_ends_at = $3
      WHERE id = $1 AND trial_started_at IS NULL AND subscription_status = 'none'
      RETURNING ${PLAN_COLUMNS}`,
    [request.accountId, now, addDays(now, ctx.settings.trialDays)],
  );
  const account = rows[0] ?? (await loadAccount(ctx.db, request.accountId));
  return planStateOf(account, now, ctx.settings.planGraceDays);
}

/** The billing integration's call; its key needs billing:write, which only an operator can mint. */
export async function setSubscription(ctx: IdentityContext, request: identityV1.SetSubscriptionRequest): Promise<identityV1.PlanState> {
  const now = ctx.clock();
  const actor = await loadActingKey(ctx.db, request.actor, now);
  requirePermission(actor, 'billing:write');
  const status = SETTABLE_STATUSES.find((s) => s === request.status);
  if (!status) throw new ApiError('invalid_request', `status must be one of ${SETTABLE_STATUSES.join(', ')}.`);
  const { rows } = await ctx.db.query<PlanRow>(
    // a repeated status (a retried webhook) keeps its original time: a re-sent cancel must not restart the grace period
    `UPDATE identity.accounts
        SET subscription_updated_at = CASE WHEN subscription_status = $2 THEN subscription_updated_at ELSE $3 END,
            subscription_status = $2
      WHERE id = $1 RETURNING ${PLAN_COLUMNS}`,
    [actor.account_id, status, now],
  );
  return planStateOf(rows[0]!, now, ctx.settings.planGraceDays);
}

async function loadAccount(db: Queryable, accountId: number): Promise<PlanRow> {
  const { rows } = await db.query<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM identity.accounts WHERE id = $1`, [accountId]);
  if (!rows[0]) throw new ApiError('invalid_request', `No account ${accountId}.`);
  return rows[0];
}
