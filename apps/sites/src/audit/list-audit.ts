import { ApiError } from '@sightline/errors';
import type { sitesV1 } from '@sightline/proto';
import { actorOf } from '../access/actor.js';
import { reachSite } from '../access/reach.js';
import { LIMITS } from '../limits.js';
import type { SitesContext } from '../sites-context.js';
import { rfc3339 } from '@sightline/runtime';

interface AuditRow {
  id: number;
  action: string;
  site_id: number;
  account_id: number;
  key_id: string;
  ip: string;
  user_agent: string;
  request_id: string;
  created_at: Date;
  details: unknown;
}

/** Opaque to clients: base64url of the site and the last entry id of the page. */
export function encodeCursor(siteId: number, beforeId: number): string {
  return Buffer.from(JSON.stringify({ s: siteId, b: beforeId })).toString('base64url');
}

function decodeCursor(cursor: string, siteId: number): number | null {
  if (cursor === '') return null;
  const invalid = () => new ApiError('invalid_request', 'cursor is not valid here: pass next_cursor of the previous page of this site unchanged.');
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { s, b } = (parsed ?? {}) as { s?: unknown; b?: unknown };
  if (s !== siteId || typeof b !== 'number' || !Number.isSafeInteger(b) || b <= 0) throw invalid();
  return b;
}

/**
 * The site's audit trail, newest first (by entry id: the order of the writes), for
 * the owner and admins. `limit` 1..200, 0 meaning the default 50.
 */
export async function listAudit(ctx: SitesContext, request: sitesV1.ListAuditRequest): Promise<sitesV1.ListAuditResponse> {
  const actor = actorOf(request.actor);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'manage');
  const limit = request.limit === 0 ? LIMITS.auditPageDefault : request.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.auditPageMax) {
    throw new ApiError('invalid_request', `limit must be between 1 and ${LIMITS.auditPageMax} (default ${LIMITS.auditPageDefault}).`);
  }
  const before = decodeCursor(request.cursor, site.id);
  const { rows } = await ctx.db.query<AuditRow>(
    `SELECT id, action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details
       FROM sites.audit_log
      WHERE site_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
      ORDER BY id DESC
      LIMIT $3`,
    [site.id, before, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    entries: page.map((row) => ({
      entryId: row.id,
      action: row.action,
      siteId: row.site_id,
      accountId: row.account_id,
      keyId: row.key_id,
      ip: row.ip,
      userAgent: row.user_agent,
      requestId: row.request_id,
      createdAt: rfc3339(row.created_at),
      detailsJson: JSON.stringify(row.details),
    })),
    nextCursor: rows.length > limit ? encodeCursor(site.id, page[page.length - 1]!.id) : '',
  };
}
