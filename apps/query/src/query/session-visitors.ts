import { toDateTime64, type Statement } from './compile-sql.js';
import type { Part, Plan } from './plan.js';
import type { Window } from './resolve-dates.js';
import type { ReportSite } from './report-site.js';
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
 * 3. No event of the site in the window is older than its visit's start.
 *    Conversely, a non-engagement event lies between its visit's start and last
 *    event, so its visit overlaps the window — unless it arrived late (after later
 *    events of its visit: a redelivery, a slow shard) and is older than the visit's
 *    start, which a late event joins whatever its time. Ingest records the site and
 *    UTC day of every such event in `late_event_days` before storing the event
 *    (apps/ingest/clickhouse/0006_late_event_days.sql); `lateEventsStatement` looks
 *    for one in the window's days (a day of margin each side), a few rows. Until
 *    2026-11 the check was "no visit starts after the window", which every compare
 *    window and past range failed, so those counted events (QUERY-PERF.md).
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

/** Whether an event older than its visit's start may lie in the window (rule 3 broken when true). */
export function lateEventsStatement(window: Window, site: ReportSite): Statement {
  return {
    sql: 'SELECT count() > 0 AS late FROM (SELECT 1 FROM late_event_days WHERE site_id = {site_id:UInt64} AND day >= toDate({start:DateTime64(3)}) - 1 AND day <= toDate({end:DateTime64(3)}) + 1 LIMIT 1)',
    params: { site_id: site.siteId, start: toDateTime64(window.startMs), end: toDateTime64(window.endMs) },
  };
}
