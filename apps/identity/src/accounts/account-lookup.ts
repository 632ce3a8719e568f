import { checkEmailAddress } from '@sightline/address-rules';
import { ApiError } from '@sightline/errors';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';

const MAX_DESCRIBED = 500;

/**
 * The account behind an address (0 when none). An address that could never have an
 * account (malformed, refused zone) answers the address rules' 400, so a caller
 * adding a member learns why rather than "no such account".
 */
export async function findAccount(ctx: IdentityContext, request: identityV1.FindAccountRequest): Promise<identityV1.FindAccountResponse> {
  const check = checkEmailAddress(request.email);
  if (!check.ok) throw new ApiError(check.code, check.message);
  const { rows } = await ctx.db.query<{ id: number }>('SELECT id FROM identity.accounts WHERE email = $1', [check.email]);
  return { accountId: rows[0]?.id ?? 0, email: check.email };
}

/** Addresses of accounts, for member lists: identity is the only service that stores them. */
export async function describeAccounts(ctx: IdentityContext, request: identityV1.DescribeAccountsRequest): Promise<identityV1.DescribeAccountsResponse> {
  if (request.accountIds.length > MAX_DESCRIBED) throw new ApiError('invalid_request', `At most ${MAX_DESCRIBED} accounts per call.`);
  if (request.accountIds.length === 0) return { accounts: [] };
  const { rows } = await ctx.db.query<{ id: number; email: string }>('SELECT id, email FROM identity.accounts WHERE id = ANY($1::bigint[])', [
    request.accountIds,
  ]);
  return { accounts: rows.map((row) => ({ accountId: row.id, email: row.email })) };
}
