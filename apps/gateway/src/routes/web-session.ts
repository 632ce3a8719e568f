import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1 } from '@sightline/proto';
import { KeyCache } from '../auth/key-cache.js';
import { clearSessionCookie, csrfMatches, csrfTokenOf, sessionTokenOf, setSessionCookie } from '../auth/session-cookie.js';
import { clientInfo } from '../edge/client-info.js';
import { errorResponses } from '../schemas/error-responses.js';

export interface WebSessionRouteOptions {
  identity: identityV1.IdentityServiceClient;
  /** verified sessions (the authentication hook's); a new session goes in, revoked ones out */
  sessionCache: KeyCache;
  /** drops revoked sessions from every cache of this replica at once (the others learn over keys.revoked) */
  forgetSessions: (sessionIds: readonly string[]) => void;
  deadlineMs: number;
}

const SESSION_MESSAGE = 'No signed-in session: sign in with an e-mailed code (POST /web/session).';
const CSRF_MESSAGE = 'A signed-in session with its X-CSRF-Token header is required.';
const security = [{ webSession: [], csrfToken: [] }];
const tags = ['web session'];

const StartSessionBody = z.object({
  email: z.string().max(320).describe('The address the code was mailed to (POST /api/v1/auth/send-otp).'),
  code: z.string().max(20).describe('The six-digit code from the e-mail.'),
  accept_terms: z
    .boolean()
    .optional()
    .describe('Must be true when the address has no account yet (the terms of service are at `GET /terms`); not needed to sign in to an existing account.'),
});
const csrfToken = z
  .string()
  .describe('Send it as the `X-CSRF-Token` header with every call the session makes; derived from the session, valid as long as it is.');
const expiresAt = z.string().describe('RFC 3339; the session ends then (30 days after sign-in, not extended by use).');
const StartedSession = z
  .object({ email: z.string(), created: z.boolean().describe('true when this sign-in created the account.'), csrf_token: csrfToken, expires_at: expiresAt })
  .meta({ id: 'WebSessionStarted' });
const CurrentSession = z.object({ email: z.string(), csrf_token: csrfToken, expires_at: expiresAt }).meta({ id: 'WebSession' });

/**
 * The dashboard's browser session: sign in with an e-mailed code (the token goes
 * into an HttpOnly cookie and never reaches page scripts), read it back, sign out,
 * sign out everywhere. A session can only read (stats and the site list) on the
 * routes that accept it (`config.auth.session`); it is never an API key.
 */
export const webSessionRoutes: FastifyPluginAsyncZod<WebSessionRouteOptions> = async (app, { identity, sessionCache, forgetSessions, deadlineMs }) => {
  const options = (request: FastifyRequest) => ({ requestId: request.id, deadlineMs });

  app.post(
    '/web/session',
    {
      config: { write: true },
      schema: {
        summary: 'Sign in the browser with an e-mailed code',
        description:
          'First `POST /api/v1/auth/send-otp`, then this with the code: the same codes, limits and errors as verify-otp (401 otp_invalid, 429 rate_limited), but the answer is a session, never an API key. ' +
          'A new address needs `accept_terms: true` (400 terms_not_accepted, nothing created, the code stays usable). ' +
          'Sets the cookie `sightline_session` (HttpOnly, SameSite=Lax, Path=/, Secure over https); the answer carries the CSRF token to send as `X-CSRF-Token`.',
        tags,
        body: StartSessionBody,
        response: { 200: StartedSession, ...errorResponses(400, 401, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const started = await callUnary(
        identity,
        identity.startWebSession,
        'Identity/StartWebSession',
        { email: body.email, code: body.code, acceptTerms: body.accept_terms === true, client: clientInfo(request) },
        options(request),
      );
      // the first reads of the page need no identity call
      if (started.principal) sessionCache.set(KeyCache.hashToken(started.token), started.principal);
      setSessionCookie(request, reply, started.token, started.expiresAt);
      noStore(reply);
      return { email: started.email, created: started.created, csrf_token: csrfTokenOf(started.token), expires_at: started.expiresAt };
    },
  );

  app.get(
    '/web/session',
    {
      config: { write: false },
      schema: {
        summary: 'The signed-in session of this browser',
        description:
          'Needs only the cookie (this is how a page learns its CSRF token after a reload). 401 unauthorized when there is no live session; a dead cookie is cleared.',
        tags,
        security: [{ webSession: [] }],
        response: { 200: CurrentSession, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const token = sessionTokenOf(request);
      if (!token) throw new ApiError('unauthorized', SESSION_MESSAGE);
      let verified: identityV1.VerifyWebSessionResponse;
      try {
        // always asked: this answer is what the page trusts on load, and it refreshes the cache
        verified = await callUnary(identity, identity.verifyWebSession, 'Identity/VerifyWebSession', { token }, options(request));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'unauthorized') {
          clearSessionCookie(request, reply);
          throw new ApiError('unauthorized', SESSION_MESSAGE);
        }
        throw error;
      }
      const principal = verified.principal!;
      sessionCache.set(KeyCache.hashToken(token), principal);
      noStore(reply);
      return { email: verified.email, csrf_token: csrfTokenOf(token), expires_at: principal.expiresAt };
    },
  );

  const revokeRoute = (
    path: '/web/session' | '/web/sessions',
    summary: string,
    description: string,
    revoke: (token: string, request: FastifyRequest) => Promise<identityV1.RevokeWebSessionResponse>,
  ) =>
    app.delete(
      path,
      {
        config: { write: true },
        schema: { summary, description, tags, security, response: { 204: z.null().describe('Signed out; the cookie is cleared.'), ...errorResponses(401) } },
      },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const token = csrfCheckedToken(request);
        const revoked = await revoke(token, request).catch((error: unknown) => {
          if (error instanceof ApiError && error.code === 'unauthorized') throw new ApiError('unauthorized', SESSION_MESSAGE);
          throw error;
        });
        // at once in this process; other replicas when keys.revoked reaches them
        forgetSessions(revoked.sessionIds);
        clearSessionCookie(request, reply);
        return reply.code(204).send();
      },
    );

  revokeRoute(
    '/web/session',
    'Sign out',
    'Revokes this session: its cookie stops working at once, here and (within the revocation broadcast) on every gateway.',
    (token, request) => callUnary(identity, identity.revokeWebSession, 'Identity/RevokeWebSession', { token }, options(request)),
  );
  revokeRoute('/web/sessions', 'Sign out everywhere', 'Revokes every session of the account, this one included. API keys are not affected.', (token, request) =>
    callUnary(identity, identity.revokeAllWebSessions, 'Identity/RevokeAllWebSessions', { token }, options(request)),
  );
};

/** The cookie's token when the X-CSRF-Token header matches it, else 401 (a cross-site request carries the cookie but cannot set the header). */
function csrfCheckedToken(request: FastifyRequest): string {
  const token = sessionTokenOf(request);
  if (!token || !csrfMatches(request, token)) throw new ApiError('unauthorized', CSRF_MESSAGE);
  return token;
}

/** A session answer carries the CSRF token: never kept by a cache. */
function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}
