import { ApiError } from '@sightline/errors';
import { REGISTRATION_PERMISSIONS } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { insertKey } from '../keys/insert-key.js';
import { expiryDays, keyName, permissionList } from '../keys/key-input.js';
import { toApiKey } from '../keys/key-row.js';
import { REGISTRATION_LIMITS, takeFromLimits } from '../limits/registration-limits.js';
import { acceptedEmail } from './accepted-email.js';
import { clientOf } from './client-info.js';
import { findOrCreateAccount, recordTermsAcceptance, redeemCode } from './redeem-code.js';

/**
 * Exchanges an e-mailed code for an API key. Everything a caller can fix is checked
 * before the code is touched, so a mistake does not burn it. Then, in one
 * transaction (redeemCode): the code is locked and checked, marked used, the account
 * created if missing, the terms acceptance recorded and the key issued — or nothing happens.
 */
export async function verifyOtp(ctx: IdentityContext, request: identityV1.VerifyOtpRequest): Promise<identityV1.VerifyOtpResponse> {
  const now = ctx.clock();
  const client = clientOf(request.client);
  await takeFromLimits(ctx.db, now, [{ limit: REGISTRATION_LIMITS.requestsPerIp, key: client.limitKey }]);

  const email = acceptedEmail(request.email);
  if (!request.acceptTerms) {
    throw new ApiError('terms_not_accepted', 'accept_terms must be true: read the terms of service and agree to them; no account was created.');
  }
  const name = keyName(request.keyName);
  const days = expiryDays(request.expiresInDays);
  const permissions = request.permissionsGiven ? permissionList(request.permissions, { billingAllowed: false }) : [...REGISTRATION_PERMISSIONS];

  return redeemCode(ctx, email, request.code, now, async (tx) => {
    const account = await findOrCreateAccount(tx, email, now);
    await recordTermsAcceptance(tx, account.id, ctx.settings.termsVersion, client, now);
    // key_limit_reached throws here and rolls everything back: the code stays usable
    const issued = await insertKey(
      tx,
      { accountId: account.id, name, permissions, siteId: null, expiresInDays: days, origin: 'registration', createdByKeyId: null },
      now,
      ctx.settings.keysPerAccount,
    );
    return { token: issued.token, created: account.created, key: toApiKey(issued.key, now), accountId: account.id };
  });
}
