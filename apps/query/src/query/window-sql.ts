/**
 * The window conditions every statement starts with. `{start}`/`{end}` are UTC
 * instants (DateTime64(3)), end exclusive.
 *
 * events: the sort key is (site_id, toDate(timestamp), …), and ClickHouse does not
 * derive a `toDate(timestamp)` range from a `timestamp` range here (EXPLAIN indexes = 1
 * showed every granule of the site read, realtime included), so the day bounds are
 * stated too; they are implied by the instant bounds, so the rows are the same.
 * sessions: a session overlaps the window when it starts before its end and its last
 * event is not before its start (`timestamp`; the minmax skip index
 * `sessions_last_event` turns that into skipped granules).
 */
export const EVENTS_IN_WINDOW =
  'site_id = {site_id:UInt64} AND toDate(timestamp) >= toDate({start:DateTime64(3)}) AND toDate(timestamp) <= toDate({end:DateTime64(3)}) AND timestamp >= {start:DateTime64(3)} AND timestamp < {end:DateTime64(3)}';

export const SESSIONS_IN_WINDOW =
  'site_id = {site_id:UInt64} AND toDate(start) <= toDate({end:DateTime64(3)}) AND start < {end:DateTime64(3)} AND timestamp >= {start:DateTime64(3)}';
