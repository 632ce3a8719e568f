-- The days (UTC) on which a site has an event older than its visit's start: an event
-- that reached ingest after later events of its visit (a redelivery after a crash, a
-- slow shard) joins the visit without moving its start. Queries count a window's
-- visitors from the sessions overlapping it only when no such event lies in the
-- window (apps/query/src/query/session-visitors.ts); one row per site and day, so the
-- check reads a handful of rows. Written by ingest before the events themselves.
CREATE TABLE IF NOT EXISTS late_event_days
(
    site_id UInt64,
    day     Date
)
ENGINE = ReplacingMergeTree
ORDER BY (site_id, day)
