import type { identityV1 } from '@sightline/proto';
import type { Permission } from '@sightline/permissions';
import { rfc3339 } from '@sightline/runtime';

/** An `identity.api_keys` row as the handlers read it (never the secret hash). */
export interface KeyRow {
  id: string;
  account_id: number;
  name: string;
  prefix: string;
  permissions: Permission[];
  site_id: number | null;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export const KEY_COLUMNS = 'id, account_id, name, prefix, permissions, site_id, created_at, expires_at, last_used_at, revoked_at';

export const isExpired = (key: Pick<KeyRow, 'expires_at'>, now: Date): boolean => key.expires_at.getTime() <= now.getTime();

/** The public fields of a key. */
export function toApiKey(key: KeyRow, now: Date): identityV1.ApiKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    permissions: key.permissions,
    siteId: key.site_id ?? undefined,
    createdAt: rfc3339(key.created_at),
    expiresAt: rfc3339(key.expires_at),
    lastUsedAt: key.last_used_at ? rfc3339(key.last_used_at) : undefined,
    expired: isExpired(key, now),
  };
}

/** Who a key stands for, as the gateway caches it. */
export function toPrincipal(key: KeyRow): identityV1.Principal {
  return {
    accountId: key.account_id,
    keyId: key.id,
    permissions: key.permissions,
    siteId: key.site_id ?? undefined,
    expiresAt: rfc3339(key.expires_at),
  };
}
