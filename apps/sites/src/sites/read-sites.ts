import type { sitesV1 } from '@sightline/proto';
import { actorOf } from '../access/actor.js';
import { reachSite, type Role } from '../access/reach.js';
import type { SitesContext } from '../sites-context.js';
import { ApiError } from '@sightline/errors';
import { SITE_COLUMNS, SITE_COLUMNS_S, toSite, type SiteRow } from './site-row.js';
import { GOAL_COLUMNS, toGoal, type GoalRow } from '../goals/goals.js';

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

/**
 * The site a share hash names, with its goals, or `unknown_site`. Whether the hash
 * may be used (the public dashboard is on) is the settings service's answer, asked
 * by the gateway before it shows anything.
 */
export async function getSiteByHash(ctx: SitesContext, request: sitesV1.GetSiteByHashRequest): Promise<sitesV1.SiteWithGoals> {
  // the stored format (sites_hash_format): anything else is no site, without a query
  if (!/^[0-9A-Za-z]{22,64}$/.test(request.hash)) throw new ApiError('unknown_site');
  const { rows } = await ctx.db.query<SiteRow>(`SELECT ${SITE_COLUMNS} FROM sites.sites WHERE hash = $1`, [request.hash]);
  if (!rows[0]) throw new ApiError('unknown_site');
  const goals = await ctx.db.query<GoalRow>(`SELECT ${GOAL_COLUMNS} FROM sites.goals WHERE site_id = $1 ORDER BY id`, [rows[0].id]);
  return { site: toSite(rows[0], ctx.settings), goals: goals.rows.map(toGoal) };
}
