import { createHash } from 'node:crypto';
import { copySessionAttributes, ENGAGEMENT, PAGEVIEW, type EventRow, type SessionRow } from '@sightline/events-schema';
import { toClickHouseTime } from './clickhouse-time.js';
import type { SessionAttributes, SessionEvent } from './session-event.js';

/** A visit continues when the gap since its last event, in whole minutes truncated, is at most this. */
export const SESSION_GAP_MINUTES = 30;
const MINUTE_MS = 60_000;

/** The state of one visit: what its latest session row version says. */
export interface LiveSession {
  site_id: number;
  session_id: string;
  visitor_id: string;
  /** the per-tab marker it was started or last continued with, '' when none (not stored) */
  marker: string;
  start: number;
  /** time of the last non-engagement event (engagement never extends a visit) */
  last: number;
  version: number;
  hostname: string;
  entry_page: string;
  exit_page: string;
  /** the exit page's hostname */
  exit_hostname: string;
  pageviews: number;
  events: number;
  engagement_ms: number;
  attributes: SessionAttributes;
  /** 0 for live traffic, the import's id for imported visits */
  import_id: number;
  /**
   * Set on a visit repaired after a crash (visit-repair.ts) until its rows are
   * written: the stored version it replaces, null when none was stored.
   */
  unwritten?: { cancels: LiveSession | null };
}

/**
 * A session row not built yet: the visit's state (LiveSession objects are never
 * changed once made) and the row's sign. The row is built when its batch is
 * written (`sessionRow`), because most versions are cancelled within their batch
 * (BatchSessionVersions): building them per event was the largest allocation of
 * ingest's heap profile.
 */
export interface SessionVersion {
  session: LiveSession;
  sign: 1 | -1;
}

export interface SessionStep {
  /** the visit after the event: unchanged input when the event was dropped */
  session: LiveSession | undefined;
  /** the event's row, null when dropped */
  eventRow: EventRow | null;
  /** session versions to write with it: [old with sign -1, new with sign +1], or [new] */
  sessionVersions: SessionVersion[];
  dropped: 'engagement_without_session' | null;
}

/** Whether an event at `at` belongs to `session` (30-minute rule; a late event inside it counts too). */
export function continuesSession(session: LiveSession, at: number): boolean {
  return Math.floor((at - session.last) / MINUTE_MS) <= SESSION_GAP_MINUTES;
}

/** Deterministic, so a replayed event re-creates the same id. */
function sessionIdOf(siteId: number, visitorId: string, start: number): string {
  const id = createHash('sha256').update(`${siteId}\0${visitorId}\0${start}`).digest().readBigUInt64BE(0);
  return (id === 0n ? 1n : id).toString();
}

/**
 * The attributes are set field by field after the literal (`copySessionAttributes`,
 * generated from the catalogue): `...s.attributes` inside a literal with other fields
 * is a runtime copy per row (three rows per event) and leaves an object shape
 * JSON.stringify walks more slowly (seen in ingest's CPU profile).
 */
export function sessionRow(s: LiveSession, sign: 1 | -1): SessionRow {
  return copySessionAttributes(sessionRowColumns(s, sign), s.attributes);
}

/** A session row version's columns but the visit attributes (ingest encodes those once per visit). */
export function sessionRowColumns(s: LiveSession, sign: 1 | -1): Omit<SessionRow, keyof SessionAttributes> {
  const bounce = s.events < 2;
  return {
    site_id: s.site_id,
    session_id: s.session_id,
    visitor_id: s.visitor_id,
    sign,
    version: s.version,
    start: toClickHouseTime(s.start),
    timestamp: toClickHouseTime(s.last),
    hostname: s.hostname,
    entry_page: s.entry_page,
    exit_page: s.exit_page,
    exit_hostname: s.exit_hostname,
    pageviews: s.pageviews,
    events: s.events,
    is_bounce: bounce ? 1 : 0,
    duration: bounce ? 0 : Math.floor((s.last - s.start) / 1000),
    engagement_ms: s.engagement_ms,
    import_id: s.import_id,
  };
}

function eventRow(e: SessionEvent, s: LiveSession): EventRow {
  const row: Omit<EventRow, keyof SessionAttributes> = {
    site_id: e.site_id,
    timestamp: toClickHouseTime(e.at),
    name: e.name,
    visitor_id: s.visitor_id,
    session_id: s.session_id,
    hostname: e.hostname,
    pathname: e.pathname,
    prop_keys: e.prop_keys,
    prop_values: e.prop_values,
    engagement_ms: e.engagement_ms,
    scroll_depth: e.scroll_depth,
    status_code: e.status_code,
    import_id: e.import_id,
  };
  return copySessionAttributes(row, s.attributes);
}

function startSession(e: SessionEvent): LiveSession {
  const pageview = e.name === PAGEVIEW;
  return {
    site_id: e.site_id,
    session_id: sessionIdOf(e.site_id, e.visitor_id, e.at),
    visitor_id: e.visitor_id,
    marker: e.marker,
    start: e.at,
    last: e.at,
    version: 1,
    hostname: e.hostname,
    entry_page: pageview ? e.pathname : '',
    exit_page: pageview ? e.pathname : '',
    exit_hostname: pageview ? e.hostname : '',
    pageviews: pageview ? 1 : 0,
    events: 1,
    engagement_ms: 0,
    attributes: e.attributes,
    import_id: e.import_id,
  };
}

function extend(s: LiveSession, e: SessionEvent): LiveSession {
  const next: LiveSession = { ...s, version: s.version + 1 };
  if (e.marker !== '') next.marker = e.marker;
  if (e.name === ENGAGEMENT) {
    next.engagement_ms = s.engagement_ms + e.engagement_ms;
    return next;
  }
  next.events = s.events + 1;
  const latest = e.at >= s.last;
  if (latest) next.last = e.at;
  if (e.name === PAGEVIEW) {
    next.pageviews = s.pageviews + 1;
    if (next.entry_page === '') next.entry_page = e.pathname;
    if (latest || next.exit_page === '') {
      next.exit_page = e.pathname;
      next.exit_hostname = e.hostname;
    }
  }
  return next;
}

/**
 * One event against the visitor's candidate visit (the caller finds it: visitor id
 * under today's salt, then yesterday's, then the tab marker). Pure: same input, same
 * rows. Attributes come from the visit's first event and never change.
 */
export function applyEvent(live: LiveSession | undefined, e: SessionEvent): SessionStep {
  const current = live && continuesSession(live, e.at) ? live : undefined;
  if (!current) {
    if (e.name === ENGAGEMENT) return { session: live, eventRow: null, sessionVersions: [], dropped: 'engagement_without_session' };
    const started = startSession(e);
    return { session: started, eventRow: eventRow(e, started), sessionVersions: [{ session: started, sign: 1 }], dropped: null };
  }
  const next = extend(current, e);
  return {
    session: next,
    eventRow: eventRow(e, next),
    sessionVersions: [
      { session: current, sign: -1 },
      { session: next, sign: 1 },
    ],
    dropped: null,
  };
}

export interface VisitorRows {
  eventRows: EventRow[];
  /** every version written, in order; the last +1 row of each session is its final state */
  sessionRows: SessionRow[];
  droppedEngagements: number;
}

/** A whole visitor's time-ordered events at once (imports): rows as live ingest would have written them. */
export function sessionizeVisitor(events: readonly SessionEvent[], initial?: LiveSession): VisitorRows {
  const out: VisitorRows = { eventRows: [], sessionRows: [], droppedEngagements: 0 };
  let live = initial;
  for (const e of events) {
    const step = applyEvent(live, e);
    live = step.session;
    if (step.eventRow) out.eventRows.push(step.eventRow);
    for (const version of step.sessionVersions) out.sessionRows.push(sessionRow(version.session, version.sign));
    if (step.dropped) out.droppedEngagements += 1;
  }
  return out;
}
