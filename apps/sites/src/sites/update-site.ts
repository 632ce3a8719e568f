import { SUBJECTS } from '@sightline/bus';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { enqueueMessage, type SiteUpdatedPayload } from '../outbox/outbox.js';
import type { SitesContext } from '../sites-context.js';
import { rfc3339 } from '@sightline/runtime';
import { isUniqueViolation, siteExists } from './site-errors.js';
import { SITE_COLUMNS, toSite, type SiteRow } from './site-row.js';
import { parseTimezone, parseWeekStart } from './site-settings-input.js';
import { parseSiteUrl, requireHobbyHost } from './site-url.js';

/**
 * PATCH /sites/{id}: owner or admin. Omitted fields stay. The url follows the
 * creation rules (refused zone, hobby hosts, one site per origin per account: the
 * site's owner's account); the name becomes the new origin, the tracking key and
 * hash stay. A request that changes nothing answers the site and records nothing.
 * A change writes `site.updated` to the outbox in the same transaction, so every
 * cache of the site's context hears of it (at least once, after the commit).
 */
export async function updateSite(ctx: SitesContext, request: sitesV1.UpdateSiteRequest, call: CallContext): Promise<sitesV1.Site> {
  const actor = writerOf(request.actor);
  // request-only checks first: a refusal runs nothing
  const origin = request.url === undefined ? undefined : parseSiteUrl(request.url);
  const timezone = request.timezone === undefined ? undefined : parseTimezone(request.timezone);
  const weekStart = request.weekStart === undefined ? undefined : parseWeekStart(request.weekStart);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();

  let changed = false;
  const row = await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (origin && origin.origin !== site.name) {
      if (site.hobby) requireHobbyHost(origin.host, ctx.settings.hobbyZones, 'update');
      const taken = await tx.query('SELECT 1 FROM sites.sites WHERE owner_account_id = $1 AND name = $2 AND id <> $3', [
        site.owner_account_id,
        origin.origin,
        site.id,
      ]);
      if (taken.rowCount > 0) throw siteExists(origin.origin);
      changes.name = { from: site.name, to: origin.origin };
    }
    if (timezone !== undefined && timezone !== site.timezone) changes.timezone = { from: site.timezone, to: timezone };
    if (weekStart !== undefined && weekStart !== site.week_start) changes.week_start = { from: site.week_start, to: weekStart };
    if (Object.keys(changes).length === 0) return site;
    try {
      const { rows } = await tx.query<SiteRow>(
        `UPDATE sites.sites SET name = $2, timezone = $3, week_start = $4, updated_at = $5 WHERE id = $1 RETURNING ${SITE_COLUMNS}`,
        [site.id, origin?.origin ?? site.name, timezone ?? site.timezone, weekStart ?? site.week_start, now],
      );
      const updated = rows[0]!;
      await recordAudit(tx, source, 'site.update', site.id, { changes }, now);
      const payload: SiteUpdatedPayload = {
        site_id: updated.id,
        account_id: updated.owner_account_id,
        tracking_key: updated.tracking_key,
        name: updated.name,
        timezone: updated.timezone,
        week_start: updated.week_start,
        updated_at: rfc3339(now),
      };
      await enqueueMessage(tx, SUBJECTS.siteUpdated, payload, now);
      changed = true;
      return updated;
    } catch (error) {
      if (isUniqueViolation(error, 'sites_owner_name_unique')) throw siteExists(origin!.origin);
      throw error;
    }
  });
  if (changed) ctx.kickOutbox();
  return toSite(row, ctx.settings);
}
