import { checkEmailAddress } from '@sightline/address-rules';
import type { Db } from '@sightline/db';
import { isApiError } from '@sightline/errors';
import { insertKey, type CreatedKey } from '../keys/insert-key.js';
import { expiryDays, keyName, permissionList } from '../keys/key-input.js';

/** A mistake in what the operator typed (exit 2), as opposed to a failure (exit 1). */
export class UsageError extends Error {}

export interface OperatorKeyRequest {
  email: string;
  /** comma-separated permission ids */
  permissions: string;
  name: string;
  expiresInDays: number | undefined;
}

export interface OperatorKeyInput {
  email: string;
  permissions: ReturnType<typeof permissionList>;
  name: string;
  expiresInDays: number;
}

/** Validates with the same rules as the API, except that any permission, billing:write included, may be granted. */
export function operatorKeyInput(request: OperatorKeyRequest): OperatorKeyInput {
  const email = checkEmailAddress(request.email);
  if (!email.ok) throw new UsageError(`--email: ${email.message}`);
  try {
    return {
      email: email.email,
      permissions: permissionList(
        request.permissions
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
        { billingAllowed: true },
      ),
      name: keyName(request.name),
      expiresInDays: expiryDays(request.expiresInDays),
    };
  } catch (error) {
    if (isApiError(error)) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Mints a key for an existing account through the same code path as the API
 * (cap of active keys included). Accounts are only ever created by verify-otp,
 * where the person accepts the terms.
 */
export async function mintOperatorKey(db: Db, input: OperatorKeyInput, now: Date, keysPerAccount: number): Promise<CreatedKey> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: number }>('SELECT id FROM identity.accounts WHERE email = $1', [input.email]);
    const account = rows[0];
    if (!account) throw new Error(`No account for ${input.email}: the person registers first (send-otp, then verify-otp).`);
    return insertKey(
      tx,
      {
        accountId: account.id,
        name: input.name,
        permissions: input.permissions,
        siteId: null,
        expiresInDays: input.expiresInDays,
        origin: 'operator',
        createdByKeyId: null,
      },
      now,
      keysPerAccount,
    );
  });
}
