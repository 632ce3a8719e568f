import type { queryV1 } from '@sightline/proto';

/** A goal as the gateway sends it: exactly one of eventName / pagePath (with `*` wildcards). */
export type SiteGoal = queryV1.QueryGoal;

/**
 * What the gateway resolved about the site before the query runs: the query
 * service needs nothing else (no PostgreSQL), so it is a pure function of
 * (query, site context, events store).
 */
export interface SiteContext {
  siteId: number;
  timezone: string;
  /** 0 = Sunday … 6 = Saturday */
  weekStart: number;
  goals: readonly SiteGoal[];
  nowMs: number;
  /** whole minutes `realtime` spans before the current one (REALTIME_MINUTES unless the gateway asked for fewer: the live widget) */
  realtimeMinutes?: number;
}
