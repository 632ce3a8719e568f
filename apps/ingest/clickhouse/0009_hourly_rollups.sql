-- Hourly roll-ups: exact, mergeable per-(site, UTC hour, import) aggregates that the
-- query service reads instead of the raw rows when a query is provably answerable
-- from them (apps/query/src/query/rollup-sql.ts; design and figures:
-- load-tests/bench/QUERY-PERF.md, "Roll-ups"). Fed by materialized views on every
-- insert into events and sessions (live traffic and imports alike), so they never
-- lag; import deletes and site deletion delete their rows too (by import_id / site_id).
-- Rows with a timestamp outside 1971..2104 are not rolled up (DateTime's range); the
-- planner never uses the roll-ups for such windows.

-- events_hourly: the hour's non-engagement events — distinct visitors (the exact
-- uniqExact state of visitor ids: unions across hours exactly) and pageviews.
CREATE TABLE IF NOT EXISTS events_hourly
(
    site_id   UInt64,
    hour      DateTime('UTC'),
    import_id UInt64,
    visitors  AggregateFunction(uniqExact, UInt64),
    pageviews SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (site_id, hour, import_id);

-- sessions_hourly: sign-weighted session sums. carry = 0: the sessions that start in
-- the hour; carry = 1: the sessions that started before the hour and whose last event
-- is in it or later (a session overlapping a window [S, E) either starts in it, or
-- started before S and is carried into hour S). A superseded version's −1 row removes
-- exactly what its +1 row added, its carried hours included.
CREATE TABLE IF NOT EXISTS sessions_hourly
(
    site_id       UInt64,
    hour          DateTime('UTC'),
    carry         UInt8,
    import_id     UInt64,
    visits        SimpleAggregateFunction(sum, Int64),
    pageviews     SimpleAggregateFunction(sum, Int64),
    bounces       SimpleAggregateFunction(sum, Int64),
    duration      SimpleAggregateFunction(sum, Int64),
    engagement_ms SimpleAggregateFunction(sum, Int64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (site_id, hour, carry, import_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS events_hourly_mv TO events_hourly AS
SELECT site_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS hour, import_id,
       uniqExactState(visitor_id) AS visitors, toUInt64(countIf(name = 'pageview')) AS pageviews
FROM events
WHERE name != 'engagement' AND timestamp >= toDateTime64('1971-01-01 00:00:00', 3, 'UTC') AND timestamp < toDateTime64('2105-01-01 00:00:00', 3, 'UTC')
GROUP BY site_id, hour, import_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_hourly_mv TO sessions_hourly AS
SELECT site_id, toStartOfHour(toDateTime(start, 'UTC')) + toIntervalHour(h) AS hour, toUInt8(h > 0) AS carry, import_id,
       sum(toInt64(sign)) AS visits, sum(toInt64(pageviews) * sign) AS pageviews, sum(toInt64(is_bounce) * sign) AS bounces,
       sum(toInt64(duration) * sign) AS duration, sum(toInt64(engagement_ms) * sign) AS engagement_ms
FROM sessions
ARRAY JOIN range(toUInt64(greatest(0, dateDiff('hour', toStartOfHour(toDateTime(start, 'UTC')), toStartOfHour(toDateTime(timestamp, 'UTC')))) + 1)) AS h
WHERE start >= toDateTime64('1971-01-01 00:00:00', 3, 'UTC') AND timestamp < toDateTime64('2105-01-01 00:00:00', 3, 'UTC')
GROUP BY site_id, hour, carry, import_id;

-- the rows stored before this migration (run it while nothing writes: QUERY-PERF.md); the
-- aggregation spills to disk past 256 MiB, so a store of 100M events fits chDB's 2 GiB
INSERT INTO events_hourly
SELECT site_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS hour, import_id,
       uniqExactState(visitor_id) AS visitors, toUInt64(countIf(name = 'pageview')) AS pageviews
FROM events
WHERE name != 'engagement' AND timestamp >= toDateTime64('1971-01-01 00:00:00', 3, 'UTC') AND timestamp < toDateTime64('2105-01-01 00:00:00', 3, 'UTC')
  AND (SELECT count() FROM events_hourly) = 0
GROUP BY site_id, hour, import_id
SETTINGS max_bytes_before_external_group_by = 268435456, max_threads = 2;

INSERT INTO sessions_hourly
SELECT site_id, toStartOfHour(toDateTime(start, 'UTC')) + toIntervalHour(h) AS hour, toUInt8(h > 0) AS carry, import_id,
       sum(toInt64(sign)) AS visits, sum(toInt64(pageviews) * sign) AS pageviews, sum(toInt64(is_bounce) * sign) AS bounces,
       sum(toInt64(duration) * sign) AS duration, sum(toInt64(engagement_ms) * sign) AS engagement_ms
FROM sessions
ARRAY JOIN range(toUInt64(greatest(0, dateDiff('hour', toStartOfHour(toDateTime(start, 'UTC')), toStartOfHour(toDateTime(timestamp, 'UTC')))) + 1)) AS h
WHERE start >= toDateTime64('1971-01-01 00:00:00', 3, 'UTC') AND timestamp < toDateTime64('2105-01-01 00:00:00', 3, 'UTC')
  AND (SELECT count() FROM sessions_hourly) = 0
GROUP BY site_id, hour, carry, import_id
SETTINGS max_bytes_before_external_group_by = 268435456, max_threads = 2
