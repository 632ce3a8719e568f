import { ApiError } from '@sightline/errors';
import type { settingsV1 } from '@sightline/proto';
import type { SettingsContext } from './settings-context.js';
import { announce, auditOf, lockSite, readSite, siteIdOf } from './write.js';

/** A hobby site whose owner has no paid subscription (active or past_due) is always public. */
const alwaysPublic = (hobby: boolean, paid: boolean): boolean => hobby && !paid;

export async function getPublicDashboard(ctx: SettingsContext, request: settingsV1.GetPublicDashboardRequest): Promise<settingsV1.PublicDashboard> {
  const siteId = siteIdOf(request.siteId);
  if (alwaysPublic(request.siteHobby, request.accountPaid)) return { siteId, enabled: true };
  const row = await readSite(ctx.db, siteId);
  return { siteId, enabled: row?.public_dashboard ?? false };
}

/** `true` is never refused; `false` on an always-public site → 409 hobby_always_public, nothing changed. */
export async function putPublicDashboard(ctx: SettingsContext, request: settingsV1.PutPublicDashboardRequest): Promise<settingsV1.PublicDashboard> {
  const siteId = siteIdOf(request.siteId);
  const audit = auditOf(request.actor, request.audit);
  if (!request.enabled && alwaysPublic(request.siteHobby, request.accountPaid)) {
    throw new ApiError(
      'hobby_always_public',
      'A hobby site stays public unless its owner has a paid subscription (active or past_due; a trial does not count).',
    );
  }
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    await lockSite(tx, siteId, now);
    await tx.query('UPDATE settings.site_settings SET public_dashboard = $2 WHERE site_id = $1', [siteId, request.enabled]);
    await announce(tx, siteId, 'public_dashboard', 0, audit, { enabled: request.enabled }, now);
  });
  ctx.kickOutbox();
  return { siteId, enabled: request.enabled };
}
