import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import { describePermission, type Permission } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';
import { KEY_COLUMNS, isExpired, type KeyRow } from './key-row.js';

/** The same answer the gateway gives for any bad token: a caller learns nothing about why. */
export const UNAUTHORIZED_MESSAGE = 'A valid API key is required: Authorization: Bearer <key>.';
export const unauthorized = (): ApiError => new ApiError('unauthorized', UNAUTHORIZED_MESSAGE);

/**
 * The acting key, re-read from the database. The gateway's principal may be a few
 * seconds stale (its cache; a lost revocation broadcast), and a revoked key must
 * not be able to mint its own successor in that window, so only the key id is
 * taken from the caller: permissions, site and account come from the row.
 */
export async function loadActingKey(db: Queryable, actor: identityV1.Principal | undefined, now: Date): Promise<KeyRow> {
  if (!actor?.keyId) throw unauthorized();
  const { rows } = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM identity.api_keys WHERE id = $1`, [actor.keyId]);
  const key = rows[0];
  if (!key || key.account_id !== actor.accountId || key.revoked_at !== null || isExpired(key, now)) throw unauthorized();
  return key;
}

/** 403 `insufficient_scope` naming the permission the acting key lacks. */
export function requirePermission(key: KeyRow, permission: Permission): void {
  if (!key.permissions.includes(permission)) {
    throw new ApiError('insufficient_scope', `This key lacks the permission ${describePermission(permission)}.`);
  }
}

/** 403 `scope_escalation` unless the acting key holds every permission in `permissions`. */
export function requireNoEscalation(actor: KeyRow, permissions: readonly Permission[]): void {
  const missing = permissions.filter((p) => !actor.permissions.includes(p));
  if (missing.length > 0) {
    throw new ApiError('scope_escalation', `The acting key lacks ${missing.join(', ')}, which the key it acts on would hold.`);
  }
}
