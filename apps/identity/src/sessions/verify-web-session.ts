import type { identityV1 } from '@sightline/proto';
import { addMs } from '@sightline/runtime';
import type { IdentityContext } from '../identity-context.js';
import { hashToken } from '../keys/key-token.js';
import { SESSION_COLUMNS, sessionPrincipal, sessionUnauthorized, type SessionRow } from './session-row.js';
import { isWellFormedSessionToken } from './session-token.js';

/** last_seen_at is a hint (and the order of eviction), not an audit log: one write per session per minute at most. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * Session token → its read-only principal and the account's address. Malformed,
 * unknown, revoked and expired tokens all answer the same 401 `unauthorized`; a
 * malformed one costs no database work.
 */
export async function verifyWebSession(ctx: IdentityContext, request: identityV1.VerifyWebSessionRequest): Promise<identityV1.VerifyWebSessionResponse> {
  const now = ctx.clock();
  const row = await liveSessionOf(ctx, request.token, now);
  const staleBefore = addMs(now, -LAST_SEEN_RESOLUTION_MS);
  if (row.last_seen_at < staleBefore) {
    // conditional, so concurrent verifications of one session still write once
    await ctx.db.query('UPDATE identity.web_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $3', [row.id, now, staleBefore]);
  }
  return { principal: sessionPrincipal(row), email: row.email };
}

/** The live (unrevoked, unexpired) session of `token` with its account's address, or 401. */
export async function liveSessionOf(ctx: IdentityContext, token: string, now: Date): Promise<SessionRow & { email: string }> {
  if (!isWellFormedSessionToken(token)) throw sessionUnauthorized();
  const { rows } = await ctx.db.query<SessionRow & { email: string }>(
    `SELECT ${SESSION_COLUMNS.split(', ')
      .map((c) => `s.${c}`)
      .join(', ')}, a.email
       FROM identity.web_sessions s JOIN identity.accounts a ON a.id = s.account_id
      WHERE s.token_hash = $1`,
    [hashToken(token)],
  );
  const row = rows[0];
  if (!row || row.revoked_at !== null || row.expires_at <= now) throw sessionUnauthorized();
  return row;
}
