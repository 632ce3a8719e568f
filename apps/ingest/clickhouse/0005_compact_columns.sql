-- Stored bytes per event (npm run bench -- ingestion, 200k realistic events): the
-- largest columns were the 64-bit ids, the page path and a few mostly-zero numbers.
-- Codecs chosen for how the rows are sorted:
-- - events.visitor_id is in the sort key: consecutive values repeat (one visitor's
--   events) or grow, so Delta turns it into mostly zeros before ZSTD;
-- - sessions.session_id is in its sort key: Delta, as for events.visitor_id;
-- - events.session_id repeats in runs (a visitor's visit): ZSTD finds the runs;
-- - pathname: a site has few distinct pages compared with its events, so a
--   per-part dictionary (LowCardinality) beats compressing the text each time;
-- - mostly-zero integers: T64 strips the unused high bits, then ZSTD;
-- - values repeated in runs (one visitor's city, region, versions): ZSTD over the
--   column (or over a LowCardinality column's indexes) finds the runs LZ4 misses.
-- Existing parts are rewritten in the background (a mutation); queries see the
-- same values and types throughout.
ALTER TABLE events
    MODIFY COLUMN visitor_id UInt64 CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN session_id UInt64 CODEC(ZSTD(1)),
    MODIFY COLUMN pathname LowCardinality(String),
    MODIFY COLUMN city UInt32 CODEC(ZSTD(1)),
    MODIFY COLUMN engagement_ms UInt32 CODEC(T64, ZSTD(1)),
    MODIFY COLUMN country LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN region LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN browser_version LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN os_version LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN source LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN channel LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN browser LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN os LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN device LowCardinality(String) CODEC(ZSTD(1));
ALTER TABLE sessions
    MODIFY COLUMN session_id UInt64 CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN visitor_id UInt64 CODEC(ZSTD(1)),
    MODIFY COLUMN start DateTime64(3, 'UTC') CODEC(ZSTD(1)),
    MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(ZSTD(1)),
    MODIFY COLUMN entry_page LowCardinality(String),
    MODIFY COLUMN exit_page LowCardinality(String),
    MODIFY COLUMN city UInt32 CODEC(ZSTD(1)),
    MODIFY COLUMN region LowCardinality(String) CODEC(ZSTD(1)),
    MODIFY COLUMN duration UInt32 CODEC(T64, ZSTD(1)),
    MODIFY COLUMN engagement_ms UInt64 CODEC(T64, ZSTD(1))
