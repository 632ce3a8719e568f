import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import { REGISTRATION_PERMISSIONS } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { insertKey } from '../keys/insert-key.js';
import { expiryDays, keyName, permissionList } from '../keys/key-input.js';
import { toApiKey } from '../keys/key-row.js';
import { REGISTRATION_LIMITS, takeFromLimits } from '../limits/registration-limits.js';
import { acceptedEmail } from './accepted-email.js';
import { clientOf, type Client } from './client-info.js';
import { OTP_MAX_FAILED_ATTEMPTS, hashCode, hashesMatch, isCodeShaped } from './otp-code.js';

/** One answer for wrong, expired, used, superseded, exhausted and missing codes. */
const otpInvalid = () => new ApiError('otp_invalid', 'The code is wrong, expired or already used; request a new one with send-otp.');

interface CodeRow {
  id: number;
  code_hash: string;
  expires_at: Date;
  used_at: Date | null;
  failed_attempts: number;
  superseded: boolean;
}

type Redemption = { outcome: 'invalid' } | { outcome: 'issued'; response: identityV1.VerifyOtpResponse };

/**
 * Exchanges an e-mailed code for an API key. Everything a caller can fix is checked
 * before the code is touched, so a mistake does not burn it. Then, in one
 * transaction: the code is locked and checked, marked used, the account created if
 * missing, the terms acceptance recorded and the key issued — or nothing happens.
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
  if (!isCodeShaped(request.code)) throw otpInvalid(); // a typo in the shape is not a guess: no attempt counted

  const codeHash = hashCode(ctx.settings.secretKey, email, request.code);
  const redemption = await ctx.db.transaction(async (tx): Promise<Redemption> => {
    const code = await lockNewestCode(tx, email);
    if (!code || code.used_at !== null || code.superseded || code.expires_at <= now || code.failed_attempts >= OTP_MAX_FAILED_ATTEMPTS) {
      return { outcome: 'invalid' };
    }
    if (!hashesMatch(code.code_hash, codeHash)) {
      // returned, not thrown: the wrong try must be committed for the 5-try limit to hold
      await tx.query('UPDATE identity.otp_codes SET failed_attempts = failed_attempts + 1 WHERE id = $1', [code.id]);
      return { outcome: 'invalid' };
    }
    await tx.query('UPDATE identity.otp_codes SET used_at = $2 WHERE id = $1', [code.id, now]);
    const account = await findOrCreateAccount(tx, email, now);
    await recordTermsAcceptance(tx, account.id, ctx.settings.termsVersion, client, now);
    // key_limit_reached throws here and rolls everything back: the code stays usable
    const issued = await insertKey(
      tx,
      { accountId: account.id, name, permissions, siteId: null, expiresInDays: days, origin: 'registration', createdByKeyId: null },
      now,
      ctx.settings.keysPerAccount,
    );
    return { outcome: 'issued', response: { token: issued.token, created: account.created, key: toApiKey(issued.key, now), accountId: account.id } };
  });
  if (redemption.outcome === 'invalid') throw otpInvalid();
  return redemption.response;
}

/**
 * Only the newest code of an address can be redeemed; the row lock makes concurrent
 * verifications of one code take turns, so exactly one of them finds it unused.
 */
async function lockNewestCode(tx: Queryable, email: string): Promise<CodeRow | undefined> {
  const { rows } = await tx.query<CodeRow>(
    `SELECT id, code_hash, expires_at, used_at, failed_attempts, superseded
       FROM identity.otp_codes WHERE email = $1 ORDER BY id DESC LIMIT 1 FOR UPDATE`,
    [email],
  );
  return rows[0];
}

async function findOrCreateAccount(tx: Queryable, email: string, now: Date): Promise<{ id: number; created: boolean }> {
  const inserted = await tx.query<{ id: number }>(
    'INSERT INTO identity.accounts (email, created_at) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING RETURNING id',
    [email, now],
  );
  if (inserted.rows[0]) return { id: inserted.rows[0].id, created: true };
  const existing = await tx.query<{ id: number }>('SELECT id FROM identity.accounts WHERE email = $1', [email]);
  return { id: existing.rows[0]!.id, created: false };
}

async function recordTermsAcceptance(tx: Queryable, accountId: number, termsVersion: string, client: Client, now: Date): Promise<void> {
  await tx.query(
    'INSERT INTO identity.terms_acceptances (account_id, terms_version, ip, user_agent, accepted_at) VALUES ($1, $2, $3, $4, $5)',
    [accountId, termsVersion, client.ip, client.userAgent, now],
  );
}
