export { SITES_AUDIT_ACTIONS, SETTINGS_AUDIT_ACTIONS, isSettingsAuditAction } from './audit-actions.js';
export type { SitesAuditAction, SettingsAuditAction } from './audit-actions.js';
export { AUDIT_FIELD_BOUNDS, clipAuditText } from './audit-bounds.js';
