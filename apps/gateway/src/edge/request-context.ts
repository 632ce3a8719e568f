import type { FastifyRequest } from 'fastify';
import type { commonV1 } from '@sightline/proto';
import { principalOf } from '../auth/authenticate.js';
import { clientInfo } from './client-info.js';

/** The verified key as services see it (sites and settings alike). */
export function actorOf(request: FastifyRequest): commonV1.Actor {
  const { accountId, keyId, permissions, siteId } = principalOf(request);
  return { accountId, keyId, permissions, siteId };
}

/** Who did it, from where, in which request: recorded with every write. */
export function auditOf(request: FastifyRequest): commonV1.AuditContext {
  const { ip, userAgent } = clientInfo(request);
  return { ip, userAgent, requestId: request.id };
}

/** Options every unary call from a route carries. */
export function callOptions(request: FastifyRequest, deadlineMs: number) {
  return { requestId: request.id, deadlineMs };
}
