import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import { describePermission, type Permission } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';
import { bearerToken } from './bearer-token.js';
import { KeyCache, type Principal } from './key-cache.js';
import { csrfMatches, sessionTokenOf } from './session-cookie.js';
import type { UsageMeter } from '../budgets/usage-meter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route needs an API key; `permission` is the one it must hold. `session`:
     * a dashboard session (cookie + X-CSRF-Token) may stand in for the key — for
     * reads, since a session holds stats:read alone. `session: 'write'` (annotations
     * only): a session may also write there, acting with the route's permission;
     * the site's roles still decide (members are refused by the service).
     */
    auth?: { permission?: Permission; session?: boolean | 'write' };
  }
  interface FastifyRequest {
    /** set on authenticated routes */
    principal?: Principal;
  }
}

export interface AuthenticateOptions {
  identity: identityV1.IdentityServiceClient;
  cache: KeyCache;
  /** verified dashboard sessions, apart from keys: a session token is never accepted as a bearer key */
  sessionCache: KeyCache;
  meter: UsageMeter;
  deadlineMs: number;
}

/** One answer for every bad token: a caller learns nothing about why it was refused. */
function unauthorized(): ApiError {
  return new ApiError('unauthorized', 'A valid API key is required: Authorization: Bearer <key>.');
}

/** The OpenAPI security requirement of a route that accepts a session: both the cookie and the CSRF header. */
const SESSION_SECURITY = { webSession: [], csrfToken: [] };

type Verifier = (token: string) => Promise<identityV1.Principal | undefined>;

/**
 * A token's principal from `cache`, else from identity (`verify`), refusing one past
 * its expiry. While identity is unavailable (a restart), a token it verified within
 * the cache's staleMs still stands.
 */
async function cachedPrincipal(token: string, cache: KeyCache, verify: Verifier): Promise<Principal> {
  const tokenHash = KeyCache.hashToken(token);
  let principal = cache.get(tokenHash);
  if (!principal) {
    let answer: identityV1.Principal | undefined;
    try {
      answer = await verify(token);
    } catch (error) {
      const recent = error instanceof ApiError && error.code === 'unavailable' ? cache.getWhileUnavailable(tokenHash) : undefined;
      if (recent) return recent;
      // identity's own 401 text differs for sessions; the edge answers one text for every bad credential
      if (error instanceof ApiError && error.code === 'unauthorized') throw unauthorized();
      throw error;
    }
    if (!answer) throw unauthorized();
    cache.set(tokenHash, answer);
    principal = answer;
  }
  // a cached principal may have expired since it was verified
  if (Date.parse(principal.expiresAt) <= Date.now()) {
    cache.forgetKey(principal.keyId);
    throw unauthorized();
  }
  return principal;
}

/** The principal of a dashboard session token (the caller has checked the CSRF header). */
export function sessionPrincipal(
  request: FastifyRequest,
  token: string,
  options: Pick<AuthenticateOptions, 'identity' | 'sessionCache' | 'deadlineMs'>,
): Promise<Principal> {
  return cachedPrincipal(token, options.sessionCache, async (t) => {
    const answer = await callUnary(
      options.identity,
      options.identity.verifyWebSession,
      'Identity/VerifyWebSession',
      { token: t },
      { requestId: request.id, deadlineMs: options.deadlineMs },
    );
    return answer.principal;
  });
}

/**
 * The caller: a bearer key if the request has an Authorization header (it wins),
 * else, on a route that allows it, the session cookie — counted only together with
 * the session's X-CSRF-Token header, so a cross-site request that merely carries the
 * cookie is as anonymous as one without it.
 */
async function resolvePrincipal(
  request: FastifyRequest,
  allowSession: boolean | 'write',
  options: AuthenticateOptions,
  permission: Permission | undefined,
): Promise<Principal> {
  if (request.headers.authorization === undefined && allowSession) {
    const session = sessionTokenOf(request);
    if (!session || !csrfMatches(request, session)) throw unauthorized();
    const principal = await sessionPrincipal(request, session, options);
    // a session writing where the route lets it: the account's own role on the site is the limit
    if (allowSession === 'write' && permission && !principal.permissions.includes(permission))
      return { ...principal, permissions: [...principal.permissions, permission] };
    return principal;
  }
  const token = bearerToken(request.headers.authorization);
  if (!token) throw unauthorized();
  return cachedPrincipal(token, options.cache, async (t) => {
    const answer = await callUnary(
      options.identity,
      options.identity.verifyKey,
      'Identity/VerifyKey',
      { token: t },
      { requestId: request.id, deadlineMs: options.deadlineMs },
    );
    return answer.principal;
  });
}

/**
 * Routes declaring `config.auth` get, before their body is even parsed: the key
 * (401), the permission (403 naming it), then the hourly budgets (429). Runs after
 * the write switch, so a disabled write never reaches identity.
 */
export function registerAuthentication(app: FastifyInstance, options: AuthenticateOptions): void {
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth) return;
    const allowSession = auth.session === true ? true : auth.session === 'write' ? 'write' : false;
    if (allowSession) {
      if (allowSession === true && route.config?.write !== false)
        throw new Error(`route ${route.url} accepts a session but is not declared write: false (sessions only read)`);
      // the document states it: this runs before the OpenAPI plugin's own onRoute sees the route
      const schema = (route.schema ??= {}) as { security?: unknown[] };
      // once per schema: a GET's implicit HEAD route may share it
      if (!schema.security?.includes(SESSION_SECURITY)) schema.security = [...(schema.security ?? [{ apiKey: [] }]), SESSION_SECURITY];
    }
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    route.onRequest = [
      ...existing,
      async (request) => {
        const principal = await resolvePrincipal(request, allowSession, options, auth.permission);
        if (auth.permission && !principal.permissions.includes(auth.permission)) {
          throw new ApiError('insufficient_scope', `This key lacks the permission ${describePermission(auth.permission)}.`);
        }
        options.meter.admit(principal, route.config?.write === true);
        request.principal = principal;
      },
    ];
  });
}

/** The authenticated principal of a request on a route declaring `config.auth`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.routeOptions.url} used principalOf without config.auth`);
  return request.principal;
}
