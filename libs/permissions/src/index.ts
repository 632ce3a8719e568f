export { PERMISSIONS, PERMISSION_IDS, REGISTRATION_PERMISSIONS, KEY_NAME_MAX_CHARS, isPermission, describePermission } from './permissions.js';
export type { Permission } from './permissions.js';
