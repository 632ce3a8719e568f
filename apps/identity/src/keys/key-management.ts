import { SUBJECTS, type SubjectPayloads } from '@sightline/bus';
import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { loadActingKey, requireNoEscalation, requirePermission } from './acting-key.js';
import { insertKey } from './insert-key.js';
import { expiryDays, keyName, permissionList, siteIdOf } from './key-input.js';
import { KEY_COLUMNS, isExpired, toApiKey, type KeyRow } from './key-row.js';
import { isKeyId, mintToken } from './key-token.js';

/*
 * Key management as the acting key. Every call needs `keys:write` (the gateway
 * checks it too). A single-site key works within its own site only: it lists, creates,
 * rotates and revokes keys of that site and nothing else.
 */

export async function listKeys(ctx: IdentityContext, request: identityV1.ListKeysRequest): Promise<identityV1.ListKeysResponse> {
  const now = ctx.clock();
  const actor = await loadActingKey(ctx.db, request.actor, now);
  requirePermission(actor, 'keys:write');
  // A single-site key sees only its site's keys: it cannot act on the others (403
  // key_not_scoped), and listing them would show a site-limited holder the whole account.
  const { rows } = await ctx.db.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM identity.api_keys
      WHERE account_id = $1 AND revoked_at IS NULL AND ($2::bigint IS NULL OR site_id = $2::bigint)
      ORDER BY created_at DESC, id DESC`,
    [actor.account_id, actor.site_id],
  );
  return { keys: rows.map((key) => toApiKey(key, now)) };
}

export async function createKey(ctx: IdentityContext, request: identityV1.CreateKeyRequest): Promise<identityV1.IssuedKey> {
  const now = ctx.clock();
  const actor = await loadActingKey(ctx.db, request.actor, now);
  requirePermission(actor, 'keys:write');
  const name = keyName(request.name);
  const permissions = permissionList(request.permissions, { billingAllowed: true });
  const days = expiryDays(request.expiresInDays);
  const siteId = siteIdOf(request.siteId);
  requireNoEscalation(actor, permissions);
  if (actor.site_id !== null && siteId !== actor.site_id) {
    throw new ApiError('key_not_scoped', `This key is limited to site ${actor.site_id}; it can only create keys for that site (site_id ${actor.site_id}).`);
  }
  // Whether an all-sites actor's `site_id` names a site of its account is the sites
  // service's knowledge: the gateway asks it before calling here once sites exist.
  const created = await ctx.db.transaction((tx) =>
    insertKey(
      tx,
      { accountId: actor.account_id, name, permissions, siteId, expiresInDays: days, origin: 'api', createdByKeyId: actor.id },
      now,
      ctx.settings.keysPerAccount,
    ),
  );
  return { token: created.token, key: toApiKey(created.key, now) };
}

export async function rotateKey(ctx: IdentityContext, request: identityV1.RotateKeyRequest): Promise<identityV1.IssuedKey> {
  const now = ctx.clock();
  const actor = await loadActingKey(ctx.db, request.actor, now);
  requirePermission(actor, 'keys:write');
  const rotated = await ctx.db.transaction(async (tx) => {
    const target = await lockTargetKey(tx, actor, request.keyId);
    if (isExpired(target, now)) {
      // rotation keeps the expiry: the new secret would be dead on arrival
      throw new ApiError(
        'invalid_expiry',
        `Key ${target.id} expired at ${target.expires_at.toISOString()}; rotation keeps the expiry, so create a new key instead.`,
      );
    }
    const minted = mintToken();
    const { rows } = await tx.query<KeyRow>(
      `UPDATE identity.api_keys SET secret_hash = $2, prefix = $3, last_used_at = NULL WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [target.id, minted.secretHash, minted.prefix],
    );
    return { token: minted.token, key: rows[0]! };
  });
  await announceRevoked(ctx, rotated.key);
  return { token: rotated.token, key: toApiKey(rotated.key, now) };
}

export async function revokeKey(ctx: IdentityContext, request: identityV1.RevokeKeyRequest): Promise<identityV1.RevokeKeyResponse> {
  const now = ctx.clock();
  const actor = await loadActingKey(ctx.db, request.actor, now);
  requirePermission(actor, 'keys:write');
  const revoked = await ctx.db.transaction(async (tx) => {
    const target = await lockTargetKey(tx, actor, request.keyId);
    await tx.query('UPDATE identity.api_keys SET revoked_at = $2 WHERE id = $1', [target.id, now]);
    return target;
  });
  await announceRevoked(ctx, revoked);
  return {};
}

/**
 * The key to rotate or revoke, locked. Checks in the spec's order of meaning: a key
 * the actor's account does not hold (or no longer holds) does not exist for it (404);
 * a key cannot act on itself (409); a single-site actor stays within its site (403);
 * the actor must hold every permission of the target (403).
 */
async function lockTargetKey(tx: Queryable, actor: KeyRow, keyId: string): Promise<KeyRow> {
  if (!isKeyId(keyId)) throw new ApiError('api_key_not_found', 'No such API key on this account (unknown, already revoked, or another account’s).');
  const { rows } = await tx.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM identity.api_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL FOR UPDATE`, [
    keyId,
    actor.account_id,
  ]);
  const target = rows[0];
  if (!target) throw new ApiError('api_key_not_found', 'No such API key on this account (unknown, already revoked, or another account’s).');
  if (target.id === actor.id) throw new ApiError('self_modification', 'A key cannot rotate or revoke itself; use another key with keys:write.');
  if (actor.site_id !== null && target.site_id !== actor.site_id) {
    throw new ApiError('key_not_scoped', `This key is limited to site ${actor.site_id}; key ${target.id} is outside it.`);
  }
  requireNoEscalation(actor, target.permissions);
  return target;
}

/**
 * Tells every gateway replica to drop the key from its cache now (rotation kills
 * the old secret as revocation does). Fire-and-forget: the change is committed, and
 * a lost broadcast is bounded by the gateways' cache TTL, so a bus hiccup is logged,
 * not turned into a failed call.
 */
async function announceRevoked(ctx: IdentityContext, key: KeyRow): Promise<void> {
  const payload: SubjectPayloads[typeof SUBJECTS.keysRevoked] = { key_id: key.id, account_id: key.account_id };
  try {
    await ctx.bus.broadcast(SUBJECTS.keysRevoked, payload);
  } catch (error) {
    ctx.log.warn({ err: error, key_id: key.id }, 'keys.revoked broadcast failed; gateways drop the key when their cache entry expires');
  }
}
