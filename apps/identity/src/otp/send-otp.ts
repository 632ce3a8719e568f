import { ApiError } from '@sightline/errors';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { REGISTRATION_LIMITS, takeFromLimits } from '../limits/registration-limits.js';
import { addMinutes } from '@sightline/runtime';
import { acceptedEmail } from './accepted-email.js';
import { clientOf } from './client-info.js';
import { OTP_TTL_MINUTES, generateCode, hashCode } from './otp-code.js';
import { otpMail } from './otp-mail.js';

/**
 * Mails a six-digit code. The answer is the same whether or not the address has an
 * account (no lookup happens here at all; the account is created at verify). The
 * code exists in the mail only: not in the answer, not in a log line.
 */
export async function sendOtp(ctx: IdentityContext, request: identityV1.SendOtpRequest): Promise<identityV1.SendOtpResponse> {
  const now = ctx.clock();
  const client = clientOf(request.client);
  // every call counts, even one about to fail validation
  await takeFromLimits(ctx.db, now, [{ limit: REGISTRATION_LIMITS.requestsPerIp, key: client.limitKey }]);
  const email = acceptedEmail(request.email);
  await takeFromLimits(ctx.db, now, [
    { limit: REGISTRATION_LIMITS.codesPerAddress, key: email },
    { limit: REGISTRATION_LIMITS.codesPerIp, key: client.limitKey },
  ]);

  const code = generateCode();
  try {
    await ctx.mailer.send(otpMail(email, code, ctx.settings));
  } catch (error) {
    // only the transport's message: the error object could carry the composed mail
    ctx.log.warn({ mail_error: error instanceof Error ? error.message : String(error) }, 'sign-in code mail not sent');
    throw new ApiError('unavailable', 'The sign-in code could not be mailed right now; try again shortly.');
  }
  // Stored after the mail went out: a failed send leaves the address's previous code usable.
  await storeCode(ctx, email, hashCode(ctx.settings.secretKey, email, code), now);
  return { sent: true, email };
}

/** Records the new code and retires the address's earlier unused ones (only the newest code can be redeemed anyway). */
async function storeCode(ctx: IdentityContext, email: string, codeHash: string, now: Date): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx.query('UPDATE identity.otp_codes SET superseded = true WHERE email = $1 AND used_at IS NULL AND NOT superseded', [email]);
    await tx.query('INSERT INTO identity.otp_codes (email, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
      email,
      codeHash,
      now,
      addMinutes(now, OTP_TTL_MINUTES),
    ]);
  });
}
