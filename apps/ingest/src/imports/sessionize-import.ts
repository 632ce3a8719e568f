/**
 * The one seam between imports and the sessionizer: ordered staged rows of ONE
 * visitor in, event rows and final session rows out — through live ingest's own
 * pure sessionizer (sessions/sessionizer.ts), so imported visits follow exactly the
 * rules live traffic does (30-minute rule, bounce, entry/exit, engagement).
 *
 * An imported history is complete, so only each session's final version is written
 * (its last +1 row): no collapsing pairs for rows nobody ever saw half-built.
 */
import { pickSessionAttributes, type EventRow, type SessionRow } from '@sightline/events-schema';
import type { SessionEvent } from '../sessions/session-event.js';
import { applyEvent, sessionRow, type LiveSession } from '../sessions/sessionizer.js';
import { fromClickHouseTime } from '../sessions/clickhouse-time.js';
import { importVisitorId } from './import-ids.js';
import type { StagedRow } from './staged-row.js';

export interface SessionizedVisitor {
  events: EventRow[];
  sessions: SessionRow[];
  /** engagement events with no session to belong to (SEMANTICS: dropped) — reported as rejected lines */
  orphans: StagedRow[];
}

function sessionEvent(row: StagedRow, visitorId: string): SessionEvent {
  return {
    site_id: row.site_id,
    at: fromClickHouseTime(row.timestamp),
    name: row.name,
    visitor_id: visitorId,
    marker: '',
    hostname: row.hostname,
    pathname: row.pathname,
    prop_keys: row.prop_keys,
    prop_values: row.prop_values,
    engagement_ms: row.engagement_ms,
    scroll_depth: row.scroll_depth,
    status_code: row.status_code,
    import_id: row.import_id,
    attributes: pickSessionAttributes(row),
  };
}

/** `rows`: one visitor's staged rows, in time order (then line order). */
export function sessionizeVisitor(rows: readonly StagedRow[]): SessionizedVisitor {
  const out: SessionizedVisitor = { events: [], sessions: [], orphans: [] };
  if (rows.length === 0) return out;
  const visitorId = importVisitorId(rows[0]!.site_id, rows[0]!.visitor_key);
  const final = new Map<string, LiveSession>();
  let live: LiveSession | undefined;
  for (const row of rows) {
    const step = applyEvent(live, sessionEvent(row, visitorId));
    live = step.session;
    if (step.dropped) out.orphans.push(row);
    if (step.eventRow) out.events.push(step.eventRow);
    for (const version of step.sessionVersions) if (version.sign === 1) final.set(version.session.session_id, version.session);
  }
  // one +1 row per session, versioned 1: there is no earlier state to cancel
  out.sessions = [...final.values()].map((s) => sessionRow({ ...s, version: 1 }, 1));
  return out;
}
