import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import { SITE_COLUMNS_S, type SiteRow } from '../sites/site-row.js';
import type { Actor } from './actor.js';

export type Role = 'owner' | 'admin' | 'member';

/**
 * What a call needs on the site: `read` (any role), `manage` (owner or admin:
 * every write but deletion, members, the audit trail), `own` (the owner: deletion).
 */
export type Access = 'read' | 'manage' | 'own';

export interface ReachedSite {
  site: SiteRow;
  role: Role;
}

/** One answer for a missing site and a site the caller cannot reach: nothing tells them apart. */
export const UNKNOWN_SITE_MESSAGE = 'No such site. GET /sites lists the sites this key reaches.';
export const unknownSite = (): ApiError => new ApiError('unknown_site', UNKNOWN_SITE_MESSAGE);

/**
 * The one gate of every per-site RPC, in this order:
 * 1. the site exists and the actor's account has a role on it (owner, admin,
 *    member), else 404 `unknown_site` — the same answer as for a missing id;
 * 2. a single-site key names this site, else 403 `key_not_scoped` (only reached
 *    when the account does reach the other site: nothing leaks about foreign ones);
 * 3. the role allows `access`, else 403 `not_site_owner`.
 * With `lock`, the site row is locked FOR UPDATE in the caller's transaction: writes
 * on one site take turns (exact per-site caps) and a deletion waits for them.
 */
export async function reachSite(q: Queryable, actor: Actor, siteId: number, access: Access, options: { lock?: boolean } = {}): Promise<ReachedSite> {
  if (!Number.isSafeInteger(siteId) || siteId <= 0) throw unknownSite();
  const { rows } = await q.query<SiteRow & { role: Role }>(
    `SELECT ${SITE_COLUMNS_S}, m.role
       FROM sites.sites s
       JOIN sites.site_members m ON m.site_id = s.id AND m.account_id = $2
      WHERE s.id = $1${options.lock ? ' FOR UPDATE OF s' : ''}`,
    [siteId, actor.accountId],
  );
  const row = rows[0];
  if (!row) throw unknownSite();
  if (actor.siteId !== null && actor.siteId !== siteId) {
    throw new ApiError('key_not_scoped', `This key is limited to site ${actor.siteId}; use a key for site ${siteId} or an all-sites key.`);
  }
  const { role, ...site } = row;
  requireRole(role, access, siteId);
  return { site, role };
}

function requireRole(role: Role, access: Access, siteId: number): void {
  if (access === 'manage' && role === 'member') {
    throw new ApiError('not_site_owner', `Your role on site ${siteId} is member; this needs the owner or an admin.`);
  }
  if (access === 'own' && role !== 'owner') {
    throw new ApiError('not_site_owner', `Only the owner of site ${siteId} may do this; your role is ${role}.`);
  }
}
