-- The events and sessions tables: the column contract is libs/events-schema/src/columns.ts.
-- events: one row per stored event (pageview, engagement, custom), carrying its
-- session's first-event attributes so event-level queries need no join.
CREATE TABLE IF NOT EXISTS events
(
    site_id         UInt64,
    timestamp       DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    name            LowCardinality(String),
    visitor_id      UInt64,
    session_id      UInt64,
    hostname        LowCardinality(String),
    pathname        String CODEC(ZSTD(3)),
    referrer        String CODEC(ZSTD(3)),
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
    prop_keys       Array(LowCardinality(String)),
    prop_values     Array(String) CODEC(ZSTD(3)),
    engagement_ms   UInt32,
    scroll_depth    UInt8 DEFAULT 255,
    status_code     UInt16,
    import_id       UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (site_id, toDate(timestamp), name, visitor_id, timestamp);

-- sessions: one logical row per visit, versioned. An update writes the previous
-- version with sign -1 and the new state with sign +1, and queries aggregate with sign
-- and never need FINAL. The sort key holds only what never changes in a session.
CREATE TABLE IF NOT EXISTS sessions
(
    site_id         UInt64,
    session_id      UInt64,
    visitor_id      UInt64,
    sign            Int8,
    version         UInt32,
    start           DateTime64(3, 'UTC'),
    timestamp       DateTime64(3, 'UTC'),
    hostname        LowCardinality(String),
    entry_page      String CODEC(ZSTD(3)),
    exit_page       String CODEC(ZSTD(3)),
    pageviews       UInt32,
    events          UInt32,
    is_bounce       UInt8,
    duration        UInt32,
    engagement_ms   UInt64,
    referrer        String CODEC(ZSTD(3)),
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
    import_id       UInt64
)
ENGINE = VersionedCollapsingMergeTree(sign, version)
PARTITION BY toYYYYMM(start)
ORDER BY (site_id, toDate(start), session_id);
