import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { IdentityContext } from '../identity-context.js';
import type { Client } from './client-info.js';
import { OTP_MAX_FAILED_ATTEMPTS, hashCode, hashesMatch, isCodeShaped } from './otp-code.js';

/** One answer for wrong, expired, used, superseded, exhausted and missing codes. */
export const otpInvalid = () => new ApiError('otp_invalid', 'The code is wrong, expired or already used; request a new one with send-otp.');

interface CodeRow {
  id: number;
  code_hash: string;
  expires_at: Date;
  used_at: Date | null;
  failed_attempts: number;
  superseded: boolean;
}

type Redemption<T> = { outcome: 'invalid' } | { outcome: 'redeemed'; value: T };

/**
 * The one code path that redeems an e-mailed code (VerifyOtp for a key,
 * StartWebSession for a browser session). In one transaction: the address's newest
 * code is locked and checked, a wrong try is counted (and committed: the 5-try limit
 * must hold), a right one is marked used and `use` runs with the transaction. When
 * `use` throws, everything rolls back and the code stays usable (a fixable mistake,
 * such as terms not accepted or the key cap, does not burn it).
 */
export async function redeemCode<T>(ctx: IdentityContext, email: string, code: string, now: Date, use: (tx: Queryable) => Promise<T>): Promise<T> {
  if (!isCodeShaped(code)) throw otpInvalid(); // a typo in the shape is not a guess: no attempt counted
  const codeHash = hashCode(ctx.settings.secretKey, email, code);
  const redemption = await ctx.db.transaction(async (tx): Promise<Redemption<T>> => {
    const row = await lockNewestCode(tx, email);
    if (!row || row.used_at !== null || row.superseded || row.expires_at <= now || row.failed_attempts >= OTP_MAX_FAILED_ATTEMPTS) {
      return { outcome: 'invalid' };
    }
    if (!hashesMatch(row.code_hash, codeHash)) {
      // returned, not thrown: the wrong try must be committed for the 5-try limit to hold
      await tx.query('UPDATE identity.otp_codes SET failed_attempts = failed_attempts + 1 WHERE id = $1', [row.id]);
      return { outcome: 'invalid' };
    }
    await tx.query('UPDATE identity.otp_codes SET used_at = $2 WHERE id = $1', [row.id, now]);
    return { outcome: 'redeemed', value: await use(tx) };
  });
  if (redemption.outcome === 'invalid') throw otpInvalid();
  return redemption.value;
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

/** The account of an address, locked against concurrent creation by the unique address. */
export async function findOrCreateAccount(tx: Queryable, email: string, now: Date): Promise<{ id: number; created: boolean }> {
  const inserted = await tx.query<{ id: number }>(
    'INSERT INTO identity.accounts (email, created_at) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING RETURNING id',
    [email, now],
  );
  if (inserted.rows[0]) return { id: inserted.rows[0].id, created: true };
  const existing = await tx.query<{ id: number }>('SELECT id FROM identity.accounts WHERE email = $1', [email]);
  return { id: existing.rows[0]!.id, created: false };
}

export async function recordTermsAcceptance(tx: Queryable, accountId: number, termsVersion: string, client: Client, now: Date): Promise<void> {
  await tx.query('INSERT INTO identity.terms_acceptances (account_id, terms_version, ip, user_agent, accepted_at) VALUES ($1, $2, $3, $4, $5)', [
    accountId,
    termsVersion,
    client.ip,
    client.userAgent,
    now,
  ]);
}
