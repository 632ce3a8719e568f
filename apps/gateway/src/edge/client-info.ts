import type { FastifyRequest } from 'fastify';

const MAX_USER_AGENT = 512;

/**
 * The caller as identity records it (terms acceptance, registration limits).
 * `request.ip` honours X-Forwarded-For only from TRUSTED_PROXIES, so a client
 * cannot pick the address its limits are counted under.
 */
export function clientInfo(request: FastifyRequest): { ip: string; userAgent: string } {
  const userAgent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_USER_AGENT) : '' };
}
