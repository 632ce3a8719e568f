import { SUBJECTS } from '@sightline/bus';
import { ApiError } from '@sightline/errors';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { enqueueMessage, type SiteDeletedPayload } from '../outbox/outbox.js';
import type { SitesContext } from '../sites-context.js';
import { rfc3339 } from '@sightline/runtime';

/**
 * DELETE /sites/{id}: the owner only. One transaction: the `site.deleted` message
 * is written to the outbox FIRST — if that fails, 503 `deletion_unavailable` and
 * nothing is deleted — then the site's funnels, goals, annotations, import jobs, widget key, memberships and the site
 * go, and `site.delete` is audited (the audit trail itself is kept). After the
 * commit the relay is kicked to publish the message (and would publish it on its
 * next pass, or after a restart, if this process died now).
 */
export async function deleteSite(ctx: SitesContext, request: sitesV1.DeleteSiteRequest, call: CallContext): Promise<sitesV1.DeleteSiteResponse> {
  const actor = writerOf(request.actor);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'own', { lock: true });
    const payload: SiteDeletedPayload = { site_id: site.id, account_id: site.owner_account_id, tracking_key: site.tracking_key, deleted_at: rfc3339(now) };
    try {
      await enqueueMessage(tx, SUBJECTS.siteDeleted, payload, now);
    } catch (error) {
      call.log.error({ err: error, site_id: site.id }, 'could not record the deletion in the outbox; nothing deleted');
      throw new ApiError('deletion_unavailable', 'The deletion could not be recorded first, so nothing was deleted; try again later.');
    }
    await tx.query('DELETE FROM sites.funnel_steps WHERE funnel_id IN (SELECT id FROM sites.funnels WHERE site_id = $1)', [site.id]);
    await tx.query('DELETE FROM sites.funnels WHERE site_id = $1', [site.id]);
    await tx.query('DELETE FROM sites.goals WHERE site_id = $1', [site.id]);
    await tx.query('DELETE FROM sites.annotations WHERE site_id = $1', [site.id]);
    // the import jobs' rows go with the site's other events, when ingest handles site.deleted
    await tx.query('DELETE FROM sites.import_jobs WHERE site_id = $1', [site.id]);
    await tx.query('DELETE FROM sites.widget_keys WHERE site_id = $1', [site.id]);
    await tx.query('DELETE FROM sites.site_members WHERE site_id = $1', [site.id]);
    await tx.query('DELETE FROM sites.sites WHERE id = $1', [site.id]);
    await recordAudit(tx, source, 'site.delete', site.id, { name: site.name, tracking_key: site.tracking_key }, now);
  });
  ctx.kickOutbox();
  return {};
}
