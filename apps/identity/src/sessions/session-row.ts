import { SUBJECTS, type SubjectPayloads } from '@sightline/bus';
import { ApiError } from '@sightline/errors';
import type { Permission } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';
import { rfc3339 } from '@sightline/runtime';
import type { IdentityContext } from '../identity-context.js';

/** A session lives 30 days from sign-in (fixed: use does not extend it), then the person signs in again. */
export const SESSION_TTL_DAYS = 30;
/** Live sessions an account may hold; a sign-in beyond it revokes the least recently seen ones. */
export const MAX_LIVE_SESSIONS = 20;
/** What a session may do: read stats and the site list, nothing else (no writes, no keys, no billing). */
export const SESSION_PERMISSIONS: readonly Permission[] = ['stats:read'];

export const sessionUnauthorized = (): ApiError => new ApiError('unauthorized', 'The session is missing, expired or signed out; sign in again.');

/** An `identity.web_sessions` row as the handlers read it (never the token hash). */
export interface SessionRow {
  id: string;
  account_id: number;
  created_at: Date;
  expires_at: Date;
  last_seen_at: Date;
  revoked_at: Date | null;
}

export const SESSION_COLUMNS = 'id, account_id, created_at, expires_at, last_seen_at, revoked_at';

/** The read-only principal a session stands for: `key_id` is the session id, every site of the account by membership. */
export function sessionPrincipal(row: Pick<SessionRow, 'id' | 'account_id' | 'expires_at'>): identityV1.Principal {
  return { accountId: row.account_id, keyId: row.id, permissions: [...SESSION_PERMISSIONS], siteId: undefined, expiresAt: rfc3339(row.expires_at) };
}

/**
 * Tells every gateway replica to drop revoked sessions from its cache now, over the
 * keys' own subject (a session is a key id to the gateway's caches). Fire-and-forget
 * like key revocation: the revocation is committed; a lost broadcast is bounded by
 * the gateways' cache TTL (KEY_CACHE_TTL_MS).
 */
export async function announceSessionsRevoked(ctx: IdentityContext, accountId: number, sessionIds: readonly string[]): Promise<void> {
  for (const id of sessionIds) {
    const payload: SubjectPayloads[typeof SUBJECTS.keysRevoked] = { key_id: id, account_id: accountId };
    try {
      await ctx.bus.broadcast(SUBJECTS.keysRevoked, payload);
    } catch (error) {
      ctx.log.warn({ err: error, session_id: id }, 'keys.revoked broadcast of a session failed; gateways drop it when their cache entry expires');
    }
  }
}
