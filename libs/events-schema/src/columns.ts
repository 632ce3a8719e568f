/**
 * The events/sessions column contract of the events store. Ingest writes these
 * columns (apps/ingest/clickhouse holds the DDL), query reads them, tests seed them;
 * no app imports another. Change a name here and in the DDL together.
 *
 * ORDER BY contract — every query must hit it:
 * - events:   (site_id, toDate(timestamp), name, visitor_id, timestamp)
 *   A query names one site_id and a timestamp range, so ClickHouse reads only that
 *   site's granules of those days; `name` next lets pageview-only and custom-event
 *   queries skip the other kinds.
 * - sessions: (site_id, toDate(start), session_id)
 *   Session rows are VersionedCollapsingMergeTree(sign, version): an update writes the
 *   old state with sign -1 and the new one with sign +1, so aggregates use
 *   `sum(sign)` / `sum(x * sign)` and never need FINAL. `start` never changes for a
 *   session, so its sorting key is stable across versions (required for collapsing).
 *   A minmax skip index on `timestamp` (`sessions_last_event`, migration 0003) gives
 *   the window's lower bound: `timestamp >= {start}` skips granules of sessions that
 *   ended before the window (exact; no maximum session length is assumed).
 */

import type { SessionAttributes } from './attributes.js';

export const EVENTS_TABLE = 'events';
export const SESSIONS_TABLE = 'sessions';
export const DROPPED_EVENTS_TABLE = 'dropped_events';
/** (site_id, day) of every stored event older than its visit's start: see apps/ingest/clickhouse/0006_late_event_days.sql */
export const LATE_EVENT_DAYS_TABLE = 'late_event_days';
/**
 * The hourly roll-ups fed by materialized views from events and sessions (see
 * apps/ingest/clickhouse/0009_hourly_rollups.sql, 0010_hourly_attribute_rollups.sql): keyed by (site_id, hour, …, import_id),
 * so deleting a site's or an import's rows deletes their roll-up rows by the same condition.
 */
export const ROLLUP_TABLES = ['events_hourly', 'sessions_hourly', 'sessions_hourly_attributes'] as const;

/** Sentinels for "not recorded" in non-nullable columns (Nullable costs a byte per row). */
export const SCROLL_DEPTH_NONE = 255;
export const STATUS_CODE_NONE = 0;
export const CITY_NONE = 0;
/** import_id of live traffic; imported rows carry their import's id (> 0). */
export const LIVE_IMPORT_ID = 0;

/** The event names with a fixed meaning; every other name is a custom event. */
export const PAGEVIEW = 'pageview';
export const ENGAGEMENT = 'engagement';

/** One row of `events` as written; the visit attributes (attributes.ts) included (timestamps as 'YYYY-MM-DD HH:MM:SS.mmm' UTC). */
export interface EventRow extends SessionAttributes {
  site_id: number;
  timestamp: string;
  name: string;
  visitor_id: string; // UInt64 as decimal text (exceeds 2^53)
  session_id: string; // UInt64 as decimal text
  hostname: string;
  pathname: string;
  prop_keys: string[];
  prop_values: string[];
  engagement_ms: number;
  scroll_depth: number;
  status_code: number;
  import_id: number;
}

/** One version of a session row as written to `sessions`. */
export interface SessionRow extends SessionAttributes {
  site_id: number;
  session_id: string;
  visitor_id: string;
  sign: 1 | -1;
  version: number;
  start: string;
  timestamp: string;
  hostname: string;
  entry_page: string;
  exit_page: string;
  /** the hostname of the exit page (the last pageview's); `hostname` is the first event's */
  exit_hostname: string;
  pageviews: number;
  events: number;
  is_bounce: 0 | 1;
  duration: number;
  engagement_ms: number;
  import_id: number;
}

/**
 * How a column's value is written as TabSeparated text (rows-tsv.generated.ts):
 * - integer: a JS number, or a UInt64 as its decimal text, written as it is;
 * - time: 'YYYY-MM-DD HH:MM:SS.mmm', written as it is;
 * - text: a string, escaped (tab-separated-text.ts);
 * - texts: an array of strings, written as an array literal.
 */
export type RowColumnKind = 'integer' | 'time' | 'text' | 'texts';

export interface RowColumnSpec {
  readonly name: string;
  readonly kind: RowColumnKind;
}

/** The columns of `EventRow` other than the visit attributes, in the order ingest writes them. */
export const EVENT_ROW_COLUMNS = [
  { name: 'site_id', kind: 'integer' },
  { name: 'timestamp', kind: 'time' },
  { name: 'name', kind: 'text' },
  { name: 'visitor_id', kind: 'integer' },
  { name: 'session_id', kind: 'integer' },
  { name: 'hostname', kind: 'text' },
  { name: 'pathname', kind: 'text' },
  { name: 'prop_keys', kind: 'texts' },
  { name: 'prop_values', kind: 'texts' },
  { name: 'engagement_ms', kind: 'integer' },
  { name: 'scroll_depth', kind: 'integer' },
  { name: 'status_code', kind: 'integer' },
  { name: 'import_id', kind: 'integer' },
] as const satisfies readonly (RowColumnSpec & { name: Exclude<keyof EventRow, keyof SessionAttributes> })[];

/** The columns of `SessionRow` other than the visit attributes, in the order ingest writes them. */
export const SESSION_ROW_COLUMNS = [
  { name: 'site_id', kind: 'integer' },
  { name: 'session_id', kind: 'integer' },
  { name: 'visitor_id', kind: 'integer' },
  { name: 'sign', kind: 'integer' },
  { name: 'version', kind: 'integer' },
  { name: 'start', kind: 'time' },
  { name: 'timestamp', kind: 'time' },
  { name: 'hostname', kind: 'text' },
  { name: 'entry_page', kind: 'text' },
  { name: 'exit_page', kind: 'text' },
  { name: 'exit_hostname', kind: 'text' },
  { name: 'pageviews', kind: 'integer' },
  { name: 'events', kind: 'integer' },
  { name: 'is_bounce', kind: 'integer' },
  { name: 'duration', kind: 'integer' },
  { name: 'engagement_ms', kind: 'integer' },
  { name: 'import_id', kind: 'integer' },
] as const satisfies readonly (RowColumnSpec & { name: Exclude<keyof SessionRow, keyof SessionAttributes> })[];
