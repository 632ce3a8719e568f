import type { sitesV1 } from '@sightline/proto';
import { actorOf } from '../access/actor.js';
import { reachSite, type Role } from '../access/reach.js';
import type { SitesContext } from '../sites-context.js';
import { ApiError } from '@sightline/errors';
import { SITE_COLUMNS, SITE_COLUMNS_S, toSite, type SiteRow } from './site-row.js';

/** GET /sites: every site the key reaches (a single-site key: its own), with the caller's role, by site id. */
export async function listSites(ctx: SitesContext, request: sitesV1.ListSitesRequest): Promise<sitesV1.ListSitesResponse> {
  const actor = actorOf(request.actor);
  const { rows } = await ctx.db.query<SiteRow & { role: Role }>(
    `SELECT ${SITE_COLUMNS_S}, m.role
       FROM sites.site_members m
       JOIN sites.sites s ON s.id = m.site_id
      WHERE m.account_id = $1 AND ($2::bigint IS NULL OR s.id = $2::bigint)
      ORDER BY s.id`,
    [actor.accountId, actor.siteId],
  );
  return { sites: rows.map(({ role, ...site }) => ({ site: toSite(site, ctx.settings), role })) };
}

/** One site the key reaches, with the caller's role (the gateway checks a `site_id` with it). */
export async function getSite(ctx: SitesContext, request: sitesV1.GetSiteRequest): Promise<sitesV1.SiteWithRole> {
  const actor = actorOf(request.actor);
  const { site, role } = await reachSite(ctx.db, actor, request.siteId, 'read');
  return { site: toSite(site, ctx.settings), role };
}

/** The site a tracking key names, or `unknown_site`; keys are public, so this reveals only what a page already shows. */
export async function getSiteByTrackingKey(ctx: SitesContext, request: sitesV1.GetSiteByTrackingKeyRequest): Promise<sitesV1.Site> {
  if (!/^[A-Za-z0-9]{8,64}$/.test(request.trackingKey)) throw new ApiError('unknown_site');
  const { rows } = await ctx.db.query<SiteRow>(`SELECT ${SITE_COLUMNS} FROM sites.sites WHERE tracking_key = $1`, [request.trackingKey]);
  if (!rows[0]) throw new ApiError('unknown_site');
  return toSite(rows[0], ctx.settings);
}
