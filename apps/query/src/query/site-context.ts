/**
 * What the gateway resolved about the site before the query runs: the query
 * service needs nothing else (no PostgreSQL), so it is a pure function of
 * (query, site context, events store).
 */
export interface SiteGoal {
  displayName: string;
  /** exactly one of eventName / pagePath (with `*` wildcards) */
  eventName?: string;
  pagePath?: string;
}

export interface SiteContext {
  siteId: number;
  timezone: string;
  /** 0 = Sunday … 6 = Saturday */
  weekStart: number;
  goals: SiteGoal[];
  nowMs: number;
}
