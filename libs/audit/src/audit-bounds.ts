/**
 * The longest text each audit-trail field keeps (sites.audit_log): a writer cuts to
 * these before the entry is stored or announced, so no path records more.
 */
export const AUDIT_FIELD_BOUNDS = { keyId: 200, ip: 100, userAgent: 1000, requestId: 200, messageId: 200 } as const;

/** `value` cut to `max` characters; anything but a string becomes ''. */
export function clipAuditText(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}
