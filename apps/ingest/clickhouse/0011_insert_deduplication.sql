-- Exactly once across a lost answer: ingest names each batch's insert into events and
-- sessions (`insert_deduplication_token`, apps/ingest/src/writer/batch-writer.ts). When
-- the store stored a batch but its answer was lost (the server went away mid-answer),
-- the retried insert carries the same token and is skipped, instead of storing the
-- batch's rows twice; its materialized views (the roll-ups) are then skipped too. A
-- MergeTree remembers tokens only with a window (replicated tables keep one already).
ALTER TABLE events MODIFY SETTING non_replicated_deduplication_window = 1000;

ALTER TABLE sessions MODIFY SETTING non_replicated_deduplication_window = 1000
;

-- the roll-ups fed by their views skip a retried block only with a window of their own
ALTER TABLE events_hourly MODIFY SETTING non_replicated_deduplication_window = 1000;

ALTER TABLE sessions_hourly MODIFY SETTING non_replicated_deduplication_window = 1000;

ALTER TABLE sessions_hourly_attributes MODIFY SETTING non_replicated_deduplication_window = 1000
