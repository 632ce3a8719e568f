import type { SessionAttributes } from './session-event.js';
import type { LiveSession, SessionVersion } from './sessionizer.js';

/**
 * What the events table says about one live visit: its stored events folded the way
 * the sessionizer folds them (non-engagement events counted and extending it,
 * engagement summed). Counted over a bounded look-back, so a visit longer than it
 * reads short — which is why a repair only ever raises the stored counters.
 */
export interface VisitFromEvents {
  site_id: number;
  session_id: string;
  visitor_id: string;
  /** non-engagement events */
  events: number;
  pageviews: number;
  engagement_ms: number;
  /** first and last non-engagement event, ms */
  first: number;
  last: number;
  hostname: string;
  entry_page: string;
  exit_page: string;
  exit_hostname: string;
  attributes: SessionAttributes;
}

/**
 * The visit as it must be when the sessions table lacks updates the events table has:
 * ingest writes a batch's events, then its session versions, so a process killed
 * between the two inserts leaves events whose visits never counted them (and their
 * messages come back marked as stored). Undefined when the stored visit already holds
 * everything its events say. The result is not written yet: `unwritten.cancels` is the
 * stored version it replaces (null when nothing of the visit was stored), written by
 * the first event of the visit that reaches this replica (`takeCorrection`) — only the
 * replica owning the visitor's shard ever touches it, so a replica never corrects a
 * visit another one is writing.
 */
export function repairVisit(stored: LiveSession | undefined, fromEvents: VisitFromEvents): LiveSession | undefined {
  if (!stored) {
    return {
      site_id: fromEvents.site_id,
      session_id: fromEvents.session_id,
      visitor_id: fromEvents.visitor_id,
      marker: '',
      start: fromEvents.first,
      last: fromEvents.last,
      version: 1,
      hostname: fromEvents.hostname,
      entry_page: fromEvents.entry_page,
      exit_page: fromEvents.exit_page,
      exit_hostname: fromEvents.exit_hostname,
      pageviews: fromEvents.pageviews,
      events: fromEvents.events,
      engagement_ms: fromEvents.engagement_ms,
      attributes: fromEvents.attributes,
      import_id: 0,
      unwritten: { cancels: null },
    };
  }
  const lacks = fromEvents.events > stored.events || fromEvents.pageviews > stored.pageviews || fromEvents.engagement_ms > stored.engagement_ms;
  if (!lacks) return undefined;
  // The lost updates are the visit's newest (nothing was written after them before the restart).
  const newer = fromEvents.last >= stored.last;
  return {
    ...stored,
    version: stored.version + 1,
    events: Math.max(stored.events, fromEvents.events),
    pageviews: Math.max(stored.pageviews, fromEvents.pageviews),
    engagement_ms: Math.max(stored.engagement_ms, fromEvents.engagement_ms),
    last: Math.max(stored.last, fromEvents.last),
    entry_page: stored.entry_page !== '' ? stored.entry_page : fromEvents.entry_page,
    exit_page: newer && fromEvents.exit_page !== '' ? fromEvents.exit_page : stored.exit_page,
    exit_hostname: newer && fromEvents.exit_page !== '' ? fromEvents.exit_hostname : stored.exit_hostname,
    unwritten: { cancels: stored },
  };
}

/**
 * The session versions that write a repaired visit (cancel the stored version, add the
 * repaired one), once; [] for a visit already written. Clears the mark in place: the
 * cache holds this very object under each of its keys.
 */
export function takeCorrection(visit: LiveSession): SessionVersion[] {
  const pending = visit.unwritten;
  if (!pending) return [];
  delete visit.unwritten;
  return pending.cancels
    ? [
        { session: pending.cancels, sign: -1 },
        { session: visit, sign: 1 },
      ]
    : [{ session: visit, sign: 1 }];
}
