import { ApiError } from '@sightline/errors';
import type { identityV1 } from '@sightline/proto';

/**
 * May a site's reports be read, given its owner's plan? Identity decides the plan
 * (`tracking_active`, `reports_open`); this is the one place that turns it into the
 * API's answer. A lapsed site (tracking stopped) answers `tracking_inactive` — the
 * more specific reason, since its reports are closed too; an expired trial still in
 * its grace period answers `plan_expired`.
 */
export function assertReportsReadable(plan: Pick<identityV1.PlanState, 'reportsOpen' | 'trackingActive'>): void {
  if (!plan.trackingActive) throw new ApiError('tracking_inactive', "This site no longer collects data: the owner's plan has lapsed.");
  if (!plan.reportsOpen) throw new ApiError('plan_expired');
}
