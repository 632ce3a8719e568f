import { AUDIT_FIELD_BOUNDS } from '@sightline/audit';
import { ApiError } from '@sightline/errors';
import type { CallContext } from '@sightline/grpc-kit';
import { describePermission, type Permission } from '@sightline/permissions';
import type { commonV1 } from '@sightline/proto';

/**
 * The verified key making the call, as the gateway passed it. Sites trusts the
 * gateway's authentication (the key lives in identity's schema, not here) but
 * checks everything about which site the key may touch.
 */
export interface Actor {
  accountId: number;
  keyId: string;
  permissions: readonly string[];
  /** set: a single-site key, limited to this site */
  siteId: number | null;
}

/** The gateway's answer to any bad token; a call without a usable actor gets it too. */
export const unauthorized = (): ApiError => new ApiError('unauthorized', 'A valid API key is required: Authorization: Bearer <key>.');

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

export function actorOf(actor: commonV1.Actor | undefined): Actor {
  if (!actor || !isId(actor.accountId) || typeof actor.keyId !== 'string' || actor.keyId === '' || actor.keyId.length > AUDIT_FIELD_BOUNDS.keyId)
    throw unauthorized();
  if (actor.siteId !== undefined && actor.siteId !== null && !isId(actor.siteId)) throw unauthorized();
  return { accountId: actor.accountId, keyId: actor.keyId, permissions: actor.permissions ?? [], siteId: actor.siteId ?? null };
}

/**
 * 403 `insufficient_scope` unless the key holds `permission`. The gateway checks the
 * route's permission before calling; this is the same rule, kept where the data is.
 */
export function requirePermission(actor: Actor, permission: Permission): void {
  if (!actor.permissions.includes(permission)) {
    throw new ApiError('insufficient_scope', `This key lacks the permission ${describePermission(permission)}.`);
  }
}

/** A write: a usable actor holding `sites:write` (Manage sites). */
export function writerOf(actor: commonV1.Actor | undefined): Actor {
  const writer = actorOf(actor);
  requirePermission(writer, 'sites:write');
  return writer;
}

/** Who did a write, from where, in which request: recorded with it. */
export interface AuditSource {
  accountId: number;
  keyId: string;
  ip: string;
  userAgent: string;
  requestId: string;
}

const clip = (value: string | undefined, max: number): string => (value ?? '').slice(0, max);

/** The audit source of a call: the gateway's AuditContext, the call's request id when it has none. */
export function auditSourceOf(actor: Actor, audit: commonV1.AuditContext | undefined, call: Pick<CallContext, 'requestId'>): AuditSource {
  return {
    accountId: actor.accountId,
    keyId: actor.keyId,
    ip: clip(audit?.ip, AUDIT_FIELD_BOUNDS.ip),
    userAgent: clip(audit?.userAgent, AUDIT_FIELD_BOUNDS.userAgent),
    requestId: clip(audit?.requestId || call.requestId, AUDIT_FIELD_BOUNDS.requestId),
  };
}
