export { PERMISSIONS, PERMISSION_IDS, REGISTRATION_PERMISSIONS, isPermission, describePermission } from './permissions.js';
export type { Permission } from './permissions.js';
