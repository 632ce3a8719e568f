import { ApiError } from '@sightline/errors';
import { KEY_NAME_MAX_CHARS, PERMISSION_IDS, isPermission, type Permission } from '@sightline/permissions';

export const DEFAULT_EXPIRY_DAYS = 90;
const MAX_EXPIRY_DAYS = 365;
const MAX_NAME = KEY_NAME_MAX_CHARS;
const CONTROL = /[\x00-\x1F\x7F]/;

/** A key's label: trimmed, 1..100 characters, no control characters (it is shown in listings). */
export function keyName(raw: string): string {
  const name = raw.trim();
  const length = [...name].length; // characters, as PostgreSQL's length() counts them
  if (length < 1 || length > MAX_NAME || CONTROL.test(name)) {
    throw new ApiError('invalid_request', `The key name must be 1 to ${MAX_NAME} characters without control characters.`);
  }
  return name;
}

/** Days until the key expires: 1..365, default 90. Every key expires. */
export function expiryDays(value: number | undefined): number {
  if (value === undefined) return DEFAULT_EXPIRY_DAYS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_EXPIRY_DAYS) {
    throw new ApiError('invalid_expiry', `expires_in_days must be a whole number from 1 to ${MAX_EXPIRY_DAYS} (got ${value}).`);
  }
  return value;
}

/**
 * Known, deduplicated, in catalogue order (so equal sets compare equal). Unknown ids,
 * an empty list, and `billing:write` where it cannot be granted are 400 `invalid_scope`
 * — never silently dropped or downgraded.
 */
export function permissionList(requested: readonly string[], options: { billingAllowed: boolean }): Permission[] {
  const unknown = requested.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    throw new ApiError('invalid_scope', `Unknown permission ${unknown.map((p) => JSON.stringify(p)).join(', ')}; known: ${PERMISSION_IDS.join(', ')}.`);
  }
  if (requested.length === 0) throw new ApiError('invalid_scope', `A key needs at least one permission (${PERMISSION_IDS.join(', ')}).`);
  if (!options.billingAllowed && requested.includes('billing:write')) {
    throw new ApiError('invalid_scope', 'billing:write cannot be granted at registration; an operator mints billing keys.');
  }
  return PERMISSION_IDS.filter((p) => requested.includes(p));
}

/** A single-site key's site: a positive id, or undefined for an all-sites key. */
export function siteIdOf(value: number | undefined): number | null {
  if (value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 1) throw new ApiError('invalid_request', 'site_id must be a positive integer.');
  return value;
}
