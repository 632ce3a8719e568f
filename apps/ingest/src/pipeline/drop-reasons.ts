/** Why ingest refused an event; each is counted in `dropped_events`. */
export const DROP_REASONS = [
  'invalid',
  'bot',
  'referrer_spam',
  'unknown_site',
  'tracking_inactive',
  /** the page URL does not parse, names no host, or is not http:/https: (file:, ftp:, ws:, chrome-extension:, …) */
  'invalid_url',
  'hostname_not_allowed',
  'hostname_blocked',
  'ip_blocked',
  'country_not_allowed',
  'country_blocked',
  /** the event's day has no salt any more (older than yesterday) */
  'stale',
  'engagement_without_session',
] as const;

export type DropReason = (typeof DROP_REASONS)[number];

/** One refused event, as counted: site 0 when unknown. */
export interface Drop {
  reason: DropReason;
  site_id: number;
  crawler_category: string;
  /** event time (or receive time when unreadable), for the hourly bucket */
  at: Date;
}
