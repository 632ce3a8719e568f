import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { announceSessionsRevoked, sessionUnauthorized } from './session-row.js';
import { liveSessionOf } from './verify-web-session.js';

/** Sign-out: revokes the session of `token` (only a live session can sign itself out; else 401). */
export async function revokeWebSession(ctx: IdentityContext, request: identityV1.RevokeWebSessionRequest): Promise<identityV1.RevokeWebSessionResponse> {
  const now = ctx.clock();
  const session = await liveSessionOf(ctx, request.token, now);
  const { rows } = await ctx.db.query<{ id: string }>('UPDATE identity.web_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id', [
    session.id,
    now,
  ]);
  // a concurrent sign-out got there first: the session is gone either way, and that call announced it
  if (rows.length === 0) throw sessionUnauthorized();
  await announceSessionsRevoked(ctx, session.account_id, [session.id]);
  return { sessionIds: [session.id] };
}

/** Sign out everywhere: every live session of the account holding `token`, that one included. API keys are untouched. */
export async function revokeAllWebSessions(
  ctx: IdentityContext,
  request: identityV1.RevokeAllWebSessionsRequest,
): Promise<identityV1.RevokeWebSessionResponse> {
  const now = ctx.clock();
  const session = await liveSessionOf(ctx, request.token, now);
  const { rows } = await ctx.db.query<{ id: string }>(
    'UPDATE identity.web_sessions SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2 RETURNING id',
    [session.account_id, now],
  );
  const sessionIds = rows.map((row) => row.id);
  await announceSessionsRevoked(ctx, session.account_id, sessionIds);
  return { sessionIds };
}
