import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { addMs } from '@sightline/runtime';
import { unauthorized } from './acting-key.js';
import { KEY_COLUMNS, isExpired, toPrincipal, type KeyRow } from './key-row.js';
import { hashToken, isWellFormedToken } from './key-token.js';

/** last_used_at is a hint for people, not an audit log: one write per key per minute at most. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Bearer token → principal. Malformed, bad checksum, unknown, revoked and expired
 * all answer the same 401 `unauthorized`; a malformed token costs no database work.
 */
export async function verifyKey(ctx: IdentityContext, request: identityV1.VerifyKeyRequest): Promise<identityV1.VerifyKeyResponse> {
  if (!isWellFormedToken(request.token)) throw unauthorized();
  const now = ctx.clock();
  const { rows } = await ctx.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM identity.api_keys WHERE secret_hash = $1`, [hashToken(request.token)]);
  const key = rows[0];
  if (!key || key.revoked_at !== null || isExpired(key, now)) throw unauthorized();
  const staleBefore = addMs(now, -LAST_USED_RESOLUTION_MS);
  if (key.last_used_at === null || key.last_used_at < staleBefore) {
    // conditional, so concurrent verifications of one key still write once
    await ctx.db.query('UPDATE identity.api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)', [
      key.id,
      now,
      staleBefore,
    ]);
  }
  return { principal: toPrincipal(key) };
}
