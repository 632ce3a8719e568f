import {
  emptySessionAttributes,
  ENGAGEMENT,
  EVENTS_TABLE,
  PAGEVIEW,
  SESSION_ATTRIBUTE_COLUMNS,
  SESSION_ATTRIBUTES,
  SESSIONS_TABLE,
} from '@sightline/events-schema';
import type { EventStore } from '@sightline/event-store';
import { fromClickHouseTime, toClickHouseTime } from './clickhouse-time.js';
import type { SessionCache } from './session-cache.js';
import type { SessionAttributes } from './session-event.js';
import { SESSION_GAP_MINUTES, type LiveSession } from './sessionizer.js';
import { repairVisit, type VisitFromEvents } from './visit-repair.js';

const STATE_COLUMNS = [
  'visitor_id',
  'start',
  'timestamp',
  'hostname',
  'entry_page',
  'exit_page',
  'exit_hostname',
  'pageviews',
  'events',
  'engagement_ms',
  'import_id',
];
// Exact text for UInt64 ids and DateTime64 (JSON numbers lose precision past 2^53).
const AS_TEXT = new Set(['visitor_id', 'start', 'timestamp']);
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The live window reaches this far past the 30-minute rule (late events, replicas a little behind). */
const LIVE_MARGIN_MS = 5 * MINUTE_MS;
/** How far back a live visit's events are read to check it: visits longer than this are not checked. */
const VISIT_LOOK_BACK_MS = DAY_MS;
/** Only events this recent can still be waiting for redelivery (the events stream's age limit). */
const NEWEST_EVENT_LOOK_BACK_DAYS = 3;

export interface RebuiltSessions {
  /** visits put back in the cache */
  visits: number;
  /** …of which the sessions table lacked updates the events table has (written by their next event) */
  repaired: number;
}

/**
 * After a restart: every visit still live back into the cache, so an event after the
 * restart continues its visit as it would have without one. Live means its last event
 * is within the 30-minute rule of the newest stored event (or of `now`, whichever is
 * earlier), so a restart while a backlog drains keeps the backlog's visits too.
 *
 * Each live visit is also checked against its events: a process killed between a
 * batch's events insert and its sessions insert leaves stored events that their visits
 * never counted (or a visit never stored at all). Those visits come back repaired
 * (visit-repair.ts) before any message is consumed; the redelivered messages are then
 * found stored and skipped. The tab marker is not stored, so rebuilt visits are found
 * by visitor id only.
 */
export async function rebuildSessions(store: EventStore, cache: SessionCache, now: Date): Promise<RebuiltSessions> {
  const newest = await newestLiveEvent(store, now);
  const since = Math.min(now.getTime(), newest ?? Infinity) - (SESSION_GAP_MINUTES + 1) * MINUTE_MS - LIVE_MARGIN_MS;
  const params = {
    since: toClickHouseTime(since),
    lookBack: toClickHouseTime(since - VISIT_LOOK_BACK_MS),
    engagement: ENGAGEMENT,
    pageview: PAGEVIEW,
  };
  // Visits with an event in the window: by the events table, so one whose session rows were never stored counts too.
  const liveVisits = `SELECT DISTINCT site_id, session_id FROM ${EVENTS_TABLE}
    WHERE toDate(timestamp) >= toDate({since:DateTime64(3, 'UTC')}) AND timestamp >= {since:DateTime64(3, 'UTC')} AND import_id = 0`;
  const [states, fromEvents] = await Promise.all([storedStates(store, liveVisits, params), visitsFromEvents(store, liveVisits, params)]);
  // A visit none of whose rows was stored takes its attributes from its first event (read for those only).
  const unstored = fromEvents.filter((v) => !states.has(`${v.site_id}:${v.session_id}`));
  const firstEvents = await firstEventsOf(store, unstored, params);

  let repaired = 0;
  for (const counted of fromEvents) {
    const key = `${counted.site_id}:${counted.session_id}`;
    const first = firstEvents.get(key);
    const fixed = repairVisit(states.get(key), first ? { ...counted, ...first } : counted);
    if (fixed) {
      states.set(key, fixed);
      repaired += 1;
    }
  }
  for (const session of states.values()) cache.put(session, session.visitor_id);
  return { visits: states.size, repaired };
}

/** The newest stored live event, if any in the last days: the clock of a backlog being drained. */
async function newestLiveEvent(store: EventStore, now: Date): Promise<number | undefined> {
  const [row] = await store.query<{ newest: string; n: number }>(
    `SELECT toString(max(timestamp)) AS newest, count() AS n FROM ${EVENTS_TABLE}
     WHERE toDate(timestamp) >= toDate({now:DateTime64(3, 'UTC')}) - {days:UInt32} AND import_id = 0`,
    { now: toClickHouseTime(now.getTime()), days: NEWEST_EVENT_LOOK_BACK_DAYS },
  );
  return row && Number(row.n) > 0 ? fromClickHouseTime(row.newest) : undefined;
}

/** The latest version of every visit live in the window or holding one of its events; keyed site:session. */
async function storedStates(store: EventStore, liveVisits: string, params: Record<string, unknown>): Promise<Map<string, LiveSession>> {
  // argMax by version: the -1 and +1 rows of one version carry the same state.
  // Aliased `latest_*`: an alias named like a column would replace the column in WHERE.
  const picks = [...STATE_COLUMNS, ...SESSION_ATTRIBUTE_COLUMNS]
    .map((c) => (AS_TEXT.has(c) ? `toString(argMax(${c}, version)) AS latest_${c}` : `argMax(${c}, version) AS latest_${c}`))
    .join(', ');
  const rows = await store.query<Record<string, string | number>>(
    `SELECT site_id, toString(session_id) AS session_id, max(version) AS latest_version, ${picks}
     FROM ${SESSIONS_TABLE}
     WHERE timestamp >= {lookBack:DateTime64(3, 'UTC')} AND (timestamp >= {since:DateTime64(3, 'UTC')} OR (site_id, session_id) IN (${liveVisits}))
     GROUP BY site_id, session_id
     HAVING sum(sign) > 0`,
    params,
  );
  const states = new Map<string, LiveSession>();
  for (const row of rows) {
    const r = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/^latest_/, ''), v]));
    const session: LiveSession = {
      site_id: Number(r.site_id),
      session_id: String(r.session_id),
      visitor_id: String(r.visitor_id),
      marker: '',
      start: fromClickHouseTime(String(r.start)),
      last: fromClickHouseTime(String(r.timestamp)),
      version: Number(r.version),
      hostname: String(r.hostname),
      entry_page: String(r.entry_page),
      exit_page: String(r.exit_page),
      exit_hostname: String(r.exit_hostname),
      pageviews: Number(r.pageviews),
      events: Number(r.events),
      engagement_ms: Number(r.engagement_ms),
      attributes: attributesOf(r),
      import_id: Number(r.import_id),
    };
    states.set(`${session.site_id}:${session.session_id}`, session);
  }
  return states;
}

/** Each live visit folded from its stored events (over the look-back), in one aggregation. */
async function visitsFromEvents(store: EventStore, liveVisits: string, params: Record<string, unknown>): Promise<VisitFromEvents[]> {
  const counted = `name != {engagement:String}`;
  const rows = await store.query<Record<string, string | number>>(
    `SELECT site_id, toString(session_id) AS session_id, toString(argMinIf(visitor_id, timestamp, ${counted})) AS visitor,
       countIf(${counted}) AS n_events, countIf(name = {pageview:String}) AS n_pageviews,
       sumIf(engagement_ms, name = {engagement:String}) AS n_engagement_ms,
       toString(minIf(timestamp, ${counted})) AS first_at, toString(maxIf(timestamp, ${counted})) AS last_at,
       argMinIf(pathname, timestamp, name = {pageview:String}) AS entry, argMaxIf(pathname, timestamp, name = {pageview:String}) AS exit,
       argMaxIf(hostname, timestamp, name = {pageview:String}) AS exit_host
     FROM ${EVENTS_TABLE}
     WHERE toDate(timestamp) >= toDate({lookBack:DateTime64(3, 'UTC')}) AND timestamp >= {lookBack:DateTime64(3, 'UTC')} AND import_id = 0
       AND (site_id, session_id) IN (${liveVisits})
     GROUP BY site_id, session_id
     HAVING n_events > 0`,
    params,
  );
  return rows.map((r) => ({
    site_id: Number(r.site_id),
    session_id: String(r.session_id),
    visitor_id: String(r.visitor),
    events: Number(r.n_events),
    pageviews: Number(r.n_pageviews),
    engagement_ms: Number(r.n_engagement_ms),
    first: fromClickHouseTime(String(r.first_at)),
    last: fromClickHouseTime(String(r.last_at)),
    // read by firstEventsOf for the visits that need them (none stored)
    hostname: '',
    entry_page: String(r.entry),
    exit_page: String(r.exit),
    exit_hostname: String(r.exit_host),
    attributes: emptySessionAttributes(),
  }));
}

/** Hostname and attributes of each visit's first counted event (every event row carries its visit's attributes). */
async function firstEventsOf(
  store: EventStore,
  visits: readonly VisitFromEvents[],
  params: Record<string, unknown>,
): Promise<Map<string, Pick<VisitFromEvents, 'hostname' | 'attributes'>>> {
  const out = new Map<string, Pick<VisitFromEvents, 'hostname' | 'attributes'>>();
  if (visits.length === 0) return out;
  const attributes = SESSION_ATTRIBUTE_COLUMNS.map((c) => `argMin(${c}, timestamp) AS attr_${c}`).join(', ');
  const rows = await store.query<Record<string, string | number>>(
    `SELECT site_id, toString(session_id) AS session_id, argMin(hostname, timestamp) AS host, ${attributes}
     FROM ${EVENTS_TABLE}
     WHERE toDate(timestamp) >= toDate({lookBack:DateTime64(3, 'UTC')}) AND timestamp >= {lookBack:DateTime64(3, 'UTC')} AND import_id = 0
       AND name != {engagement:String} AND site_id IN {sites:Array(UInt64)} AND session_id IN {sessions:Array(UInt64)}
     GROUP BY site_id, session_id`,
    { ...params, sites: [...new Set(visits.map((v) => v.site_id))], sessions: visits.map((v) => BigInt(v.session_id)) },
  );
  for (const r of rows) {
    const attributes = attributesOf(Object.fromEntries(SESSION_ATTRIBUTE_COLUMNS.map((c) => [c, r[`attr_${c}`]])));
    out.set(`${r.site_id}:${r.session_id}`, { hostname: String(r.host), attributes });
  }
  return out;
}

function attributesOf(r: Record<string, string | number | undefined>): SessionAttributes {
  return Object.fromEntries(SESSION_ATTRIBUTES.map((a) => [a.name, a.ts === 'number' ? Number(r[a.name]) : String(r[a.name])])) as SessionAttributes;
}
