-- Events ingest refused, counted per site, hour, reason and crawler category
-- (site_id 0 when the tracking key resolved to no site). SummingMergeTree adds the
-- counts of rows with the same key when parts merge, so readers use sum(count).
CREATE TABLE IF NOT EXISTS dropped_events
(
    site_id          UInt64,
    hour             DateTime('UTC'),
    reason           LowCardinality(String),
    crawler_category LowCardinality(String),
    count            UInt64
)
ENGINE = SummingMergeTree(count)
PARTITION BY toYYYYMM(hour)
ORDER BY (site_id, hour, reason, crawler_category)
