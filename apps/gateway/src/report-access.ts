import type { FastifyRequest } from 'fastify';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { callOptions } from './request-context.js';

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

/** The owner's plan of a site (already reached by the caller), then {@link assertReportsReadable}. */
export async function assertSiteReportsReadable(
  identity: identityV1.IdentityServiceClient,
  request: FastifyRequest,
  site: Pick<sitesV1.Site, 'ownerAccountId'>,
  deadlineMs: number,
): Promise<void> {
  const plan = await callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId: site.ownerAccountId }, callOptions(request, deadlineMs));
  assertReportsReadable(plan);
}
