import { toDateTime64, type Statement } from './compile-sql.js';
import type { Part, Plan } from './plan.js';
import type { Window } from './resolve-dates.js';
import type { SiteContext } from './site-context.js';
import type { ValidQuery } from './validate.js';

/**
 * A window's distinct visitors (an aggregate's, event:goal's total) from the sessions
 * overlapping the window instead of the window's non-engagement events: the same set,
 * from about a third of the rows (figures: load-tests/bench/QUERY-PERF.md). It is the
 * same set when:
 *
 * 1. The window lasts at least 31 minutes (day windows; not realtime). A visit's
 *    non-engagement events from its start to its last event are, in time order, less
 *    than 31 minutes apart (an event continues a visit when the gap since its last
 *    event, in whole minutes truncated, is at most 30; an earlier event arriving late
 *    only splits a gap). So a visit that started before the window and whose last
 *    event is in or after it has an event in the window's first 31 minutes, and one
 *    that starts in the window has its first event there.
 * 2. Every filter is visit-level: fixed for a visit, stored alike on both tables.
 * 3. No visit of the site starts at or after the window's end. Conversely, an event
 *    in the window belongs to a visit overlapping it unless it arrived late and is
 *    older than its visit's start (a late event joins its visit whatever its time)
 *    and that visit starts after the window. Checked per window by
 *    `sessionsAfterStatement` (a few granules); a window ending before the latest
 *    visit (a compare window, a past range) keeps counting events.
 *
 * Both tables are written by the same sessionizer for live traffic and imports, every
 * event row carries its visit's visitor id, and deletes remove both tables' rows (one
 * statement each: between the two, counts may differ as any read mid-delete does).
 */
export const MIN_WINDOW_MS = 31 * 60_000;

/**
 * The plan with the window's visitors read from sessions — an aggregate's visitors, or
 * event:goal's all-visitors total (conversion_rate's denominator) — or undefined when
 * rule 1 or 2 does not hold or nothing moves.
 */
export function sessionVisitorsPlan(query: ValidQuery, plan: Plan, window: Window): Plan | undefined {
  if (window.kind !== 'days' || window.endMs - window.startMs < MIN_WINDOW_MS) return undefined;
  if (!query.filters.every((f) => f.spec.level === 'visit')) return undefined;
  if (plan.secondary.some((p) => p.kind === 'goal-total')) {
    return { primary: plan.primary, secondary: plan.secondary.map((p) => (p.kind === 'goal-total' ? { ...p, fromSessions: true } : p)) };
  }
  if (query.shape !== 'aggregate') return undefined;
  const parts = [plan.primary, ...plan.secondary];
  const events = parts.find((p) => p.kind === 'events' && p.metrics.includes('visitors'));
  if (!events || parts.some((p) => p.kind !== 'events' && p.kind !== 'sessions')) return undefined;
  const sessions = parts.find((p) => p.kind === 'sessions');
  const moved: Part[] = [{ kind: 'sessions', metrics: ['visitors', ...(sessions?.metrics ?? [])] }];
  const rest = events.metrics.filter((m) => m !== 'visitors');
  if (rest.length) moved.push({ ...events, metrics: rest });
  return { primary: moved[0]!, secondary: moved.slice(1) };
}

/** Whether any visit of the site starts at or after the window's end (rule 3 broken when true). */
export function sessionsAfterStatement(window: Window, site: SiteContext): Statement {
  return {
    sql: 'SELECT count() > 0 AS later FROM (SELECT 1 FROM sessions WHERE site_id = {site_id:UInt64} AND toDate(start) >= toDate({end:DateTime64(3)}) AND start >= {end:DateTime64(3)} LIMIT 1)',
    params: { site_id: site.siteId, end: toDateTime64(window.endMs) },
  };
}
