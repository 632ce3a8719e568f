/**
 * API key permissions. The ids are a client-visible contract (keys are created
 * with them and `insufficient_scope` names them); the labels are the spec's names.
 */
export const PERMISSIONS = {
  'stats:read': 'Read analytics',
  'sites:write': 'Manage sites',
  'keys:write': 'Manage keys',
  'billing:write': 'Manage billing',
} as const;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_IDS = Object.keys(PERMISSIONS) as Permission[];

/** What a registration key holds unless asked for less; never billing:write. */
export const REGISTRATION_PERMISSIONS: readonly Permission[] = ['stats:read', 'sites:write', 'keys:write'];

export function isPermission(value: string): value is Permission {
  return Object.hasOwn(PERMISSIONS, value);
}

/** "sites:write (Manage sites)", for error messages. */
export function describePermission(permission: Permission): string {
  return `${permission} (${PERMISSIONS[permission]})`;
}

/** An API key's label: 1 to this many characters once trimmed (identity's rule, the gateway's schema). */
export const KEY_NAME_MAX_CHARS = 100;
