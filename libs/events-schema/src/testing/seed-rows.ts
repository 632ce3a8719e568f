import { emptySessionAttributes, type SessionAttributeColumn } from '../attributes.js';
import { ENGAGEMENT, EVENTS_TABLE, PAGEVIEW, SCROLL_DEPTH_NONE, SESSIONS_TABLE, STATUS_CODE_NONE, type EventRow, type SessionRow } from '../columns.js';

/**
 * TEST SUPPORT: builds consistent `events` + `sessions` rows from a compact
 * description of visits, following the column contract and SEMANTICS.md (session
 * attributes from the first event on every row, bounce = fewer than two
 * non-engagement events, duration = last − first non-engagement event, entry/exit =
 * first/last pageview path). Sessions are written as a real ingester would: every
 * update cancels the previous version (sign −1) and writes the new one (sign +1),
 * so queries are exercised on uncollapsed VersionedCollapsingMergeTree data.
 */
export type SeedAttributes = Partial<Record<SessionAttributeColumn, string | number>>;

export interface SeedEvent {
  /** UTC instant, 'YYYY-MM-DD HH:MM:SS' (or ISO with T/Z). */
  at: string;
  /** default 'pageview' */
  name?: string;
  /** default '/' */
  path?: string;
  hostname?: string;
  props?: Record<string, string>;
  engagementMs?: number;
  scroll?: number;
  status?: number;
}

export interface SeedVisit {
  visitor: number | string;
  /** default: a fresh id per visit */
  session?: number | string;
  site?: number;
  /** default 'example.com' */
  hostname?: string;
  attrs?: SeedAttributes;
  importId?: number;
  events: SeedEvent[];
}

export interface SeedRows {
  events: EventRow[];
  sessions: SessionRow[];
}

const EMPTY_ATTRIBUTES: Record<SessionAttributeColumn, string | number> = emptySessionAttributes();

/** '2026-03-29 10:00:00' or ISO → 'YYYY-MM-DD HH:MM:SS.mmm' (the contract's text form). */
export function seedTimestamp(at: string): string {
  const date = new Date(at.includes('T') ? at : `${at.replace(' ', 'T')}Z`);
  if (!Number.isFinite(date.getTime())) throw new Error(`seed: bad time ${at}`);
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

export function buildSeedRows(visits: readonly SeedVisit[], defaults: { siteId: number; firstSessionId?: number }): SeedRows {
  const events: EventRow[] = [];
  const sessions: SessionRow[] = [];
  let nextSession = defaults.firstSessionId ?? 1;
  for (const visit of visits) {
    const siteId = visit.site ?? defaults.siteId;
    const sessionId = String(visit.session ?? nextSession++);
    const attributes = { ...EMPTY_ATTRIBUTES, ...visit.attrs };
    const ordered = [...visit.events].sort((a, b) => seedTimestamp(a.at).localeCompare(seedTimestamp(b.at)));
    const host = visit.hostname ?? 'example.com';
    let started = false;
    for (const event of ordered) {
      // an engagement with no live session is dropped (SEMANTICS)
      if ((event.name ?? PAGEVIEW) === ENGAGEMENT && !started) continue;
      started = true;
      const props = Object.entries(event.props ?? {});
      events.push({
        site_id: siteId,
        timestamp: seedTimestamp(event.at),
        name: event.name ?? PAGEVIEW,
        visitor_id: String(visit.visitor),
        session_id: sessionId,
        hostname: event.hostname ?? host,
        pathname: event.path ?? '/',
        ...(attributes as Record<SessionAttributeColumn, never>),
        prop_keys: props.map(([key]) => key),
        prop_values: props.map(([, value]) => value),
        engagement_ms: event.engagementMs ?? 0,
        scroll_depth: event.scroll ?? SCROLL_DEPTH_NONE,
        status_code: event.status ?? STATUS_CODE_NONE,
        import_id: visit.importId ?? 0,
      });
    }
    let previous: SessionRow | undefined;
    let version = 0;
    const seen: SeedEvent[] = [];
    for (const event of ordered) {
      seen.push(event);
      const counted = seen.filter((e) => (e.name ?? PAGEVIEW) !== ENGAGEMENT);
      if (counted.length === 0) continue; // engagement never starts a session
      const pageviews = counted.filter((e) => (e.name ?? PAGEVIEW) === PAGEVIEW);
      const first = counted[0]!;
      const last = counted[counted.length - 1]!;
      const state: SessionRow = {
        site_id: siteId,
        session_id: sessionId,
        visitor_id: String(visit.visitor),
        sign: 1,
        version: ++version,
        start: seedTimestamp(first.at),
        timestamp: seedTimestamp(last.at),
        hostname: first.hostname ?? host,
        entry_page: pageviews[0]?.path ?? (pageviews[0] ? '/' : ''),
        exit_page: pageviews.length ? (pageviews[pageviews.length - 1]!.path ?? '/') : '',
        exit_hostname: pageviews.length ? (pageviews[pageviews.length - 1]!.hostname ?? host) : '',
        pageviews: pageviews.length,
        events: counted.length,
        is_bounce: counted.length < 2 ? 1 : 0,
        duration: Math.round((Date.parse(seedTimestamp(last.at).replace(' ', 'T') + 'Z') - Date.parse(seedTimestamp(first.at).replace(' ', 'T') + 'Z')) / 1000),
        engagement_ms: seen.reduce((sum, e) => sum + (e.engagementMs ?? 0), 0),
        ...(attributes as Record<SessionAttributeColumn, never>),
        import_id: visit.importId ?? 0,
      };
      if (previous) sessions.push({ ...previous, sign: -1 });
      sessions.push(state);
      previous = state;
    }
  }
  return { events, sessions };
}

/** The subset of EventStore the seeder needs (libs/events-schema does not depend on event-store). */
export interface SeedTarget {
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
}

export async function seedVisits(store: SeedTarget, visits: readonly SeedVisit[], defaults: { siteId: number; firstSessionId?: number }): Promise<SeedRows> {
  const rows = buildSeedRows(visits, defaults);
  if (rows.events.length) await store.insert(EVENTS_TABLE, rows.events as unknown as Record<string, unknown>[]);
  if (rows.sessions.length) await store.insert(SESSIONS_TABLE, rows.sessions as unknown as Record<string, unknown>[]);
  return rows;
}
