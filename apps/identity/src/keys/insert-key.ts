import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { Permission } from '@sightline/permissions';
import { addDays } from '@sightline/runtime';
import { KEY_COLUMNS, type KeyRow } from './key-row.js';
import { mintToken, newKeyId } from './key-token.js';

export type KeyOrigin = 'registration' | 'api' | 'operator';

export interface NewKey {
  accountId: number;
  name: string;
  permissions: Permission[];
  /** null: every site of the account */
  siteId: number | null;
  expiresInDays: number;
  origin: KeyOrigin;
  createdByKeyId: string | null;
}

export interface CreatedKey {
  /** the secret: shown once, never stored */
  token: string;
  key: KeyRow;
}

/**
 * Creates a key inside the caller's transaction, enforcing the account's cap of
 * active (unrevoked, unexpired) keys. The account row is locked first, so two
 * concurrent creations cannot both take the last free place. The one code path for
 * registration, the keys API and the operator CLI.
 */
export async function insertKey(tx: Queryable, key: NewKey, now: Date, keysPerAccount: number): Promise<CreatedKey> {
  const account = await tx.query('SELECT id FROM identity.accounts WHERE id = $1 FOR UPDATE', [key.accountId]);
  if (account.rowCount === 0) throw new Error(`account ${key.accountId} does not exist`);
  const { rows } = await tx.query<{ active: number }>(
    'SELECT count(*) AS active FROM identity.api_keys WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2',
    [key.accountId, now],
  );
  const active = Number(rows[0]?.active ?? 0);
  if (active >= keysPerAccount) {
    throw new ApiError('key_limit_reached', `The account already holds ${active} active keys, its cap is ${keysPerAccount}; revoke one first.`);
  }
  const minted = mintToken();
  const inserted = await tx.query<KeyRow>(
    `INSERT INTO identity.api_keys
       (id, account_id, name, prefix, secret_hash, permissions, site_id, origin, created_at, expires_at, created_by_key_id)
     VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, $9, $10, $11)
     RETURNING ${KEY_COLUMNS}`,
    [
      newKeyId(),
      key.accountId,
      key.name,
      minted.prefix,
      minted.secretHash,
      key.permissions,
      key.siteId,
      key.origin,
      now,
      addDays(now, key.expiresInDays),
      key.createdByKeyId,
    ],
  );
  return { token: minted.token, key: inserted.rows[0]! };
}
