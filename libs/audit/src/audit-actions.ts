/** The actions the sites service records for its own writes. */
export const SITES_AUDIT_ACTIONS = [
  'site.create',
  'site.update',
  'site.delete',
  'member.add',
  'member.remove',
  'goal.create',
  'goal.delete',
  'funnel.create',
  'funnel.delete',
  'import.create',
  'import.delete',
  'site.widget_key.rotate',
  'annotation.create',
  'annotation.update',
  'annotation.delete',
] as const;
export type SitesAuditAction = (typeof SITES_AUDIT_ACTIONS)[number];

/**
 * The action of each settings write, by settings.changed `kind`: settings announces it,
 * sites records it (and drops any message whose action is not one of these).
 */
export const SETTINGS_AUDIT_ACTIONS = {
  tracking: 'site.tracking.update',
  hostnames: 'site.hostnames.update',
  blocked_ips: 'site.blocked_ips.update',
  countries: 'site.countries.update',
  public_dashboard: 'site.public_dashboard.update',
} as const;
export type SettingsAuditAction = (typeof SETTINGS_AUDIT_ACTIONS)[keyof typeof SETTINGS_AUDIT_ACTIONS];

const SETTINGS_ACTION_SET: ReadonlySet<string> = new Set(Object.values(SETTINGS_AUDIT_ACTIONS));

/** Whether `action` is one a settings write announces. */
export function isSettingsAuditAction(action: unknown): action is SettingsAuditAction {
  return typeof action === 'string' && SETTINGS_ACTION_SET.has(action);
}
