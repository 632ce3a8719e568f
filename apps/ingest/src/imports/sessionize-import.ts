/**
 * The one seam between imports and the sessionizer: ordered events of ONE visitor in,
 * event rows and session rows out. Interim implementation of SEMANTICS "Visitors and
 * sessions" until ingest's pure sessionizer (apps/ingest/src/sessions/sessionizer.ts)
 * is merged; then this file delegates to it and nothing else in imports changes.
 *
 * An imported history is complete, so each session is written once, final (sign +1,
 * version 1): no live state, no collapsing pairs.
 */
import { ENGAGEMENT, PAGEVIEW, SESSION_ATTRIBUTE_COLUMNS, type EventRow, type SessionRow } from '@sightline/events-schema';
import { importSessionId, importVisitorId } from './import-ids.js';
import type { StagedRow } from './staged-row.js';

const SESSION_GAP_MINUTES = 30;

export interface SessionizedVisitor {
  events: EventRow[];
  sessions: SessionRow[];
  /** engagement events with no session to belong to (SEMANTICS: dropped) — reported as rejected lines */
  orphans: StagedRow[];
}

interface OpenSession {
  row: SessionRow;
  first: StagedRow;
  lastMs: number;
  firstMs: number;
  nonEngagement: number;
}

const msOf = (timestamp: string): number => Date.parse(`${timestamp.replace(' ', 'T')}Z`);

/** `rows`: one visitor's staged rows, in time order (then line order). */
export function sessionizeVisitor(rows: readonly StagedRow[]): SessionizedVisitor {
  const out: SessionizedVisitor = { events: [], sessions: [], orphans: [] };
  let open: OpenSession | undefined;
  const close = () => {
    if (!open) return;
    open.row.is_bounce = open.nonEngagement >= 2 ? 0 : 1;
    open.row.duration = open.row.is_bounce ? 0 : Math.floor((open.lastMs - open.firstMs) / 1000);
    out.sessions.push(open.row);
    open = undefined;
  };
  for (const row of rows) {
    const ms = msOf(row.timestamp);
    const continues = open !== undefined && Math.floor((ms - open.lastMs) / 60_000) <= SESSION_GAP_MINUTES;
    if (row.name === ENGAGEMENT) {
      // engagement never starts or extends a session
      if (!continues || !open) {
        out.orphans.push(row);
        continue;
      }
      open.row.engagement_ms += row.engagement_ms;
    } else {
      if (!continues) {
        close();
        open = startSession(row, ms);
      }
      const session = open!;
      session.lastMs = ms;
      session.nonEngagement += 1;
      session.row.events += 1;
      session.row.timestamp = row.timestamp;
      if (row.name === PAGEVIEW) {
        session.row.pageviews += 1;
        if (session.row.entry_page === '') session.row.entry_page = row.pathname;
        session.row.exit_page = row.pathname;
      }
    }
    out.events.push(eventRow(row, open!));
  }
  close();
  return out;
}

function startSession(row: StagedRow, ms: number): OpenSession {
  const attributes = Object.fromEntries(SESSION_ATTRIBUTE_COLUMNS.map((c) => [c, row[c]])) as Pick<SessionRow, (typeof SESSION_ATTRIBUTE_COLUMNS)[number]>;
  return {
    first: row,
    firstMs: ms,
    lastMs: ms,
    nonEngagement: 0,
    row: {
      site_id: row.site_id,
      session_id: importSessionId(row.import_id, row.visitor_key, row.line),
      visitor_id: importVisitorId(row.site_id, row.visitor_key),
      sign: 1,
      version: 1,
      start: row.timestamp,
      timestamp: row.timestamp,
      hostname: row.hostname,
      entry_page: '',
      exit_page: '',
      pageviews: 0,
      events: 0,
      is_bounce: 1,
      duration: 0,
      engagement_ms: 0,
      ...attributes,
      import_id: row.import_id,
    },
  };
}

/** The stored event: its own page and payload, its session's attributes (SEMANTICS). */
function eventRow(row: StagedRow, session: OpenSession): EventRow {
  const s = session.row;
  return {
    site_id: row.site_id,
    timestamp: row.timestamp,
    name: row.name,
    visitor_id: s.visitor_id,
    session_id: s.session_id,
    hostname: row.hostname,
    pathname: row.pathname,
    referrer: s.referrer,
    source: s.source,
    channel: s.channel,
    utm_source: s.utm_source,
    utm_medium: s.utm_medium,
    utm_campaign: s.utm_campaign,
    utm_content: s.utm_content,
    utm_term: s.utm_term,
    click_id: s.click_id,
    country: s.country,
    region: s.region,
    city: s.city,
    browser: s.browser,
    browser_version: s.browser_version,
    os: s.os,
    os_version: s.os_version,
    device: s.device,
    prop_keys: row.prop_keys,
    prop_values: row.prop_values,
    engagement_ms: row.engagement_ms,
    scroll_depth: row.scroll_depth,
    status_code: row.status_code,
    import_id: row.import_id,
  };
}
