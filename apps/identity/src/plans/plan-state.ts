import type { identityV1 } from '@sightline/proto';
import { addDays, rfc3339 } from '@sightline/runtime';

export type SubscriptionStatus = 'none' | 'active' | 'past_due' | 'canceled';

/** The plan columns of an `identity.accounts` row. */
export interface PlanRow {
  id: number;
  trial_started_at: Date | null;
  trial_ends_at: Date | null;
  subscription_status: SubscriptionStatus;
  subscription_updated_at: Date | null;
}

export const PLAN_COLUMNS = 'id, trial_started_at, trial_ends_at, subscription_status, subscription_updated_at';

/**
 * An account's plan at `now`, a pure function of its row:
 *
 * - subscription `active` / `past_due` (`paid`) → that plan: reports open, tracking on;
 * - otherwise, until paid or trial coverage ever began → `free` (open);
 * - before the trial's end → `trial` (open);
 * - coverage over, within `graceDays` → `expired`: reports closed (403 plan_expired),
 *   tracking goes on;
 * - after the grace period → `lapsed`: tracking stops too (403 tracking_inactive).
 *
 * Coverage ends at the trial's end or, for a canceled subscription, at the
 * cancellation if that is later: a customer who cancels after paying gets the same
 * grace period as one whose trial ran out, not an instant lapse.
 */
export function planStateOf(account: PlanRow, now: Date, graceDays: number): identityV1.PlanState {
  const base = {
    accountId: account.id,
    subscriptionStatus: account.subscription_status,
    trialStartedAt: account.trial_started_at ? rfc3339(account.trial_started_at) : undefined,
    trialEndsAt: account.trial_ends_at ? rfc3339(account.trial_ends_at) : undefined,
    paid: false,
  };
  const status = account.subscription_status;
  if (isPaid(status)) return { ...base, plan: status, paid: true, reportsOpen: true, trackingActive: true };

  const canceledAt = status === 'canceled' ? account.subscription_updated_at : null;
  const coverageEnd = latest(account.trial_ends_at, canceledAt);
  if (coverageEnd === null) return { ...base, plan: 'free', reportsOpen: true, trackingActive: true };
  if (now < coverageEnd) return { ...base, plan: 'trial', reportsOpen: true, trackingActive: true };
  const graceEnd = addDays(coverageEnd, graceDays);
  const inGrace = now < graceEnd;
  return { ...base, plan: inGrace ? 'expired' : 'lapsed', graceEndsAt: rfc3339(graceEnd), reportsOpen: false, trackingActive: inGrace };
}

/** The one "paid subscription" rule: `active` or `past_due` (a trial or a canceled subscription is not paid). */
export function isPaid(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'past_due';
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
