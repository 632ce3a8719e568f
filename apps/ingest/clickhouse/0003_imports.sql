-- Imports. import_staging: the valid rows of an upload, already normalised, waiting to
-- be sessionized; read back ORDER BY (visitor_key, timestamp, line) so ClickHouse, not
-- Node, sorts a million rows. Deleted once the import is written.
CREATE TABLE IF NOT EXISTS import_staging
(
    import_id       UInt64,
    site_id         UInt64,
    -- the ingest replica receiving the upload: only it judges an unfinished upload after a restart
    replica         UInt16,
    line            UInt32,
    visitor_key     String,
    timestamp       DateTime64(3, 'UTC'),
    name            LowCardinality(String),
    hostname        LowCardinality(String),
    pathname        String,
    referrer        String,
    source          LowCardinality(String),
    channel         LowCardinality(String),
    utm_source      LowCardinality(String),
    utm_medium      LowCardinality(String),
    utm_campaign    LowCardinality(String),
    utm_content     LowCardinality(String),
    utm_term        LowCardinality(String),
    click_id        LowCardinality(String),
    country         LowCardinality(String),
    region          LowCardinality(String),
    city            UInt32,
    browser         LowCardinality(String),
    browser_version LowCardinality(String),
    os              LowCardinality(String),
    os_version      LowCardinality(String),
    device          LowCardinality(String),
    prop_keys       Array(String),
    prop_values     Array(String),
    engagement_ms   UInt32,
    scroll_depth    UInt8,
    status_code     UInt16
)
ENGINE = MergeTree
ORDER BY (import_id, visitor_key, timestamp, line);

-- import_runs: ingest's own bookkeeping of each import, so a restarted ingest knows
-- which imports were staged but not written (state 'staged') and runs them again.
-- One row per state change; FINAL keeps the newest.
CREATE TABLE IF NOT EXISTS import_runs
(
    import_id   UInt64,
    site_id     UInt64,
    -- the ingest replica that staged it: the one that resumes it after a restart (a StatefulSet pod keeps its ordinal)
    replica     UInt16,
    format      LowCardinality(String),
    state       LowCardinality(String),
    accepted    UInt64,
    rejected    UInt64,
    errors      String,
    range_start DateTime64(3, 'UTC'),
    range_end   DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY import_id;
