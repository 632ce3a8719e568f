import type { Queryable } from '@sightline/db';
import type { SitesAuditAction } from '@sightline/audit';
import type { AuditSource } from '../access/actor.js';

export type AuditAction = SitesAuditAction;

/** Records a write inside the write's own transaction: both happen, or neither. */
export async function recordAudit(
  tx: Queryable,
  source: AuditSource,
  action: AuditAction,
  siteId: number,
  details: Record<string, unknown>,
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO sites.audit_log (action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`,
    [action, siteId, source.accountId, source.keyId, source.ip, source.userAgent, source.requestId, now, JSON.stringify(details)],
  );
}
