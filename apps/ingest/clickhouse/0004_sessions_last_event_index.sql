-- A minmax skip index on sessions.timestamp (the session's last event). Queries ask
-- for the sessions overlapping a window: `start < end AND timestamp >= start`. The
-- sort key (site_id, toDate(start), session_id) prunes only by the upper bound; this
-- index lets ClickHouse skip every granule whose sessions all ended before the
-- window, which is exact (no assumed maximum session length) because rows are sorted
-- by start day, so a granule's last-event times sit just after its start days.
ALTER TABLE sessions ADD INDEX IF NOT EXISTS sessions_last_event timestamp TYPE minmax GRANULARITY 1;
-- builds the index for parts written before this migration (a background mutation)
ALTER TABLE sessions MATERIALIZE INDEX sessions_last_event
