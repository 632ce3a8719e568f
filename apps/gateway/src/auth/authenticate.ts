import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import { describePermission, type Permission } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';
import { bearerToken } from './bearer-token.js';
import { KeyCache, type Principal } from './key-cache.js';
import type { UsageMeter } from '../budgets/usage-meter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs an API key; `permission` is the one it must hold. */
    auth?: { permission?: Permission };
  }
  interface FastifyRequest {
    /** set on authenticated routes */
    principal?: Principal;
  }
}

export interface AuthenticateOptions {
  identity: identityV1.IdentityServiceClient;
  cache: KeyCache;
  meter: UsageMeter;
  deadlineMs: number;
}

/** One answer for every bad token: a caller learns nothing about why it was refused. */
function unauthorized(): ApiError {
  return new ApiError('unauthorized', 'A valid API key is required: Authorization: Bearer <key>.');
}

async function resolvePrincipal(request: FastifyRequest, options: AuthenticateOptions): Promise<Principal> {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw unauthorized();
  const tokenHash = KeyCache.hashToken(token);
  let principal = options.cache.get(tokenHash);
  if (!principal) {
    const answer = await callUnary(options.identity, options.identity.verifyKey, 'Identity/VerifyKey', { token }, { requestId: request.id, deadlineMs: options.deadlineMs });
    if (!answer.principal) throw unauthorized();
    principal = answer.principal;
    options.cache.set(tokenHash, principal);
  }
  // a cached key may have expired since it was verified
  if (Date.parse(principal.expiresAt) <= Date.now()) {
    options.cache.forgetKey(principal.keyId);
    throw unauthorized();
  }
  return principal;
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
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    route.onRequest = [
      ...existing,
      async (request) => {
        const principal = await resolvePrincipal(request, options);
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
