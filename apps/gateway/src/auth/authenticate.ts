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
    principal = await verify(request, token, tokenHash, options);
  }
  // a cached key may have expired since it was verified
  if (Date.parse(principal.expiresAt) <= Date.now()) {
    options.cache.forgetKey(principal.keyId);
    throw unauthorized();
  }
  return principal;
}

async function verify(request: FastifyRequest, token: string, tokenHash: string, options: AuthenticateOptions): Promise<Principal> {
  let answer: identityV1.VerifyKeyResponse;
  try {
    answer = await callUnary(options.identity, options.identity.verifyKey, 'Identity/VerifyKey', { token }, { requestId: request.id, deadlineMs: options.deadlineMs });
  } catch (error) {
    // identity restarting: a key it verified moments ago still stands (KeyCache staleMs)
    const recent = error instanceof ApiError && error.code === 'unavailable' ? options.cache.getWhileUnavailable(tokenHash) : undefined;
    if (recent) return recent;
    throw error;
  }
  if (!answer.principal) throw unauthorized();
  options.cache.set(tokenHash, answer.principal);
  return answer.principal;
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
