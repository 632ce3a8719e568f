import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { identityV1 } from '@sightline/proto';
import { addDays, rfc3339 } from '@sightline/runtime';
import type { IdentityContext } from '../identity-context.js';
import { REGISTRATION_LIMITS, takeFromLimits } from '../limits/registration-limits.js';
import { acceptedEmail } from '../otp/accepted-email.js';
import { clientOf } from '../otp/client-info.js';
import { findOrCreateAccount, recordTermsAcceptance, redeemCode } from '../otp/redeem-code.js';
import { MAX_LIVE_SESSIONS, SESSION_TTL_DAYS, announceSessionsRevoked, sessionPrincipal } from './session-row.js';
import { mintSessionToken, newSessionId } from './session-token.js';

const termsNotAccepted = () =>
  new ApiError(
    'terms_not_accepted',
    'This address has no account yet: accept_terms must be true (read the terms of service and agree to them); no account was created.',
  );

/**
 * Signs a browser in with an e-mailed code: VerifyOtp's limits, code rules and
 * errors (one redemption path, redeemCode), but it issues a session, never an API key.
 *
 * Terms: a new address needs `accept_terms`. Whether the address has an account is
 * only looked at after the code proved right, so a guesser learns nothing about
 * which addresses are registered; a missing acceptance then rolls back, leaving the
 * code usable for the retry with the box ticked. A known account that ticks it gets
 * the acceptance recorded again (the current terms version).
 */
export async function startWebSession(ctx: IdentityContext, request: identityV1.StartWebSessionRequest): Promise<identityV1.StartWebSessionResponse> {
  const now = ctx.clock();
  const client = clientOf(request.client);
  await takeFromLimits(ctx.db, now, [{ limit: REGISTRATION_LIMITS.requestsPerIp, key: client.limitKey }]);
  const email = acceptedEmail(request.email);

  const started = await redeemCode(ctx, email, request.code, now, async (tx) => {
    const account = await findOrCreateAccount(tx, email, now);
    if (account.created && !request.acceptTerms) throw termsNotAccepted(); // rolls back the account and the code's use
    if (request.acceptTerms) await recordTermsAcceptance(tx, account.id, ctx.settings.termsVersion, client, now);
    const evicted = await makeRoom(tx, account.id, now);
    const minted = mintSessionToken();
    const row = { id: newSessionId(), account_id: account.id, expires_at: addDays(now, SESSION_TTL_DAYS) };
    await tx.query('INSERT INTO identity.web_sessions (id, account_id, token_hash, created_at, expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $4)', [
      row.id,
      row.account_id,
      minted.secretHash,
      now,
      row.expires_at,
    ]);
    return { token: minted.token, created: account.created, row, evicted };
  });
  await announceSessionsRevoked(ctx, started.row.account_id, started.evicted);
  return { token: started.token, created: started.created, email, expiresAt: rfc3339(started.row.expires_at), principal: sessionPrincipal(started.row) };
}

/**
 * Keeps an account within MAX_LIVE_SESSIONS by revoking its least recently seen live
 * sessions (a bound on rows, and on what "sign out everywhere" broadcasts). The
 * account row is locked so concurrent sign-ins count one after the other.
 */
async function makeRoom(tx: Queryable, accountId: number, now: Date): Promise<string[]> {
  await tx.query('SELECT id FROM identity.accounts WHERE id = $1 FOR UPDATE', [accountId]);
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE identity.web_sessions SET revoked_at = $2
      WHERE id IN (SELECT id FROM identity.web_sessions
                    WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2
                    ORDER BY last_seen_at DESC, created_at DESC, id DESC OFFSET $3)
      RETURNING id`,
    [accountId, now, MAX_LIVE_SESSIONS - 1],
  );
  return rows.map((row) => row.id);
}
