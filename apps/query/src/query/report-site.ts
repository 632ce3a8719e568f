import type { queryV1 } from '@sightline/proto';

/** A goal as the gateway sends it: exactly one of eventName / pagePath (with `*` wildcards). */
export type SiteGoal = queryV1.QueryGoal;

/**
 * The site a report is about (the gateway's ReportSite, the proto ReportSite),
 * with the instant it is answered at: what the gateway resolved before the query runs; the query
 * service needs nothing else (no PostgreSQL), so it is a pure function of
 * (query, report site, events store).
 */
export interface ReportSite {
  siteId: number;
  timezone: string;
  /** 0 = Sunday … 6 = Saturday */
  weekStart: number;
  goals: readonly SiteGoal[];
  nowMs: number;
  /** whole minutes `realtime` spans before the current one (REALTIME_MINUTES unless the gateway asked for fewer: the live widget) */
  realtimeMinutes?: number;
}
