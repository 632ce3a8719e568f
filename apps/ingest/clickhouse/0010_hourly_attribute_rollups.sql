-- Hourly roll-ups of the common visit-attribute breakdowns (the dashboard's first
-- tabs: channel, source, country, browser, os, device): per (site, UTC hour, carry,
-- import, attribute, stored value) the sessions' visitors (uniqExact state of the
-- visitor ids of +1 rows: a visit's attributes never change, and each later version
-- only carries it into more hours, so the set is exactly the current versions')
-- and sign-weighted session sums, with carry as in 0009. Read by
-- apps/query/src/query/rollup-sql.ts for visit:<attribute> breakdowns without filters.
CREATE TABLE IF NOT EXISTS sessions_hourly_attributes
(
    site_id       UInt64,
    hour          DateTime('UTC'),
    carry         UInt8,
    import_id     UInt64,
    attribute     LowCardinality(String),
    value         String,
    visitors      AggregateFunction(uniqExact, UInt64),
    visits        SimpleAggregateFunction(sum, Int64),
    pageviews     SimpleAggregateFunction(sum, Int64),
    bounces       SimpleAggregateFunction(sum, Int64),
    duration      SimpleAggregateFunction(sum, Int64),
    engagement_ms SimpleAggregateFunction(sum, Int64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (site_id, attribute, hour, carry, import_id, value);

CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_hourly_attributes_mv TO sessions_hourly_attributes AS
SELECT site_id, toStartOfHour(toDateTime(start, 'UTC')) + toIntervalHour(h) AS hour, toUInt8(h > 0) AS carry, import_id, a.1 AS attribute, a.2 AS value,
       uniqExactStateIf(visitor_id, sign > 0) AS visitors,
       sum(toInt64(sign)) AS visits, sum(toInt64(pageviews) * sign) AS pageviews, sum(toInt64(is_bounce) * sign) AS bounces,
       sum(toInt64(duration) * sign) AS duration, sum(toInt64(engagement_ms) * sign) AS engagement_ms
FROM sessions
ARRAY JOIN range(toUInt64(greatest(0, dateDiff('hour', toStartOfHour(toDateTime(start, 'UTC')), toStartOfHour(toDateTime(timestamp, 'UTC')))) + 1)) AS h
ARRAY JOIN [('channel', toString(channel)), ('source', toString(source)), ('country', toString(country)), ('browser', toString(browser)), ('os', toString(os)), ('device', toString(device))] AS a
WHERE start >= toDateTime64('1971-01-01 00:00:00', 3, 'UTC') AND timestamp < toDateTime64('2105-01-01 00:00:00', 3, 'UTC')
GROUP BY site_id, hour, carry, import_id, attribute, value;

-- the sessions stored before this migration (run it while nothing writes: QUERY-PERF.md)
INSERT INTO sessions_hourly_attributes
SELECT site_id, toStartOfHour(toDateTime(start, 'UTC')) + toIntervalHour(h) AS hour, toUInt8(h > 0) AS carry, import_id, a.1 AS attribute, a.2 AS value,
       uniqExactStateIf(visitor_id, sign > 0) AS visitors,
       sum(toInt64(sign)) AS visits, sum(toInt64(pageviews) * sign) AS pageviews, sum(toInt64(is_bounce) * sign) AS bounces,
       sum(toInt64(duration) * sign) AS duration, sum(toInt64(engagement_ms) * sign) AS engagement_ms
FROM sessions
ARRAY JOIN range(toUInt64(greatest(0, dateDiff('hour', toStartOfHour(toDateTime(start, 'UTC')), toStartOfHour(toDateTime(timestamp, 'UTC')))) + 1)) AS h
ARRAY JOIN [('channel', toString(channel)), ('source', toString(source)), ('country', toString(country)), ('browser', toString(browser)), ('os', toString(os)), ('device', toString(device))] AS a
WHERE start >= toDateTime64('1971-01-01 00:00:00', 3, 'UTC') AND timestamp < toDateTime64('2105-01-01 00:00:00', 3, 'UTC')
  AND (SELECT count() FROM sessions_hourly_attributes) = 0
GROUP BY site_id, hour, carry, import_id, attribute, value
SETTINGS max_bytes_before_external_group_by = 268435456, max_threads = 2
