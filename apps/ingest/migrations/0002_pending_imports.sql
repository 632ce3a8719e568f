-- Imports staged in the events store and not yet written (or failed, or deleted),
-- per ingest replica. A restart reads this small table to know whether it must
-- resume an import at once; without a row, an embedded events engine can stay
-- unloaded until the first event or query (an idle install stays small).
CREATE TABLE ingest.pending_imports (
    import_id  bigint PRIMARY KEY,
    replica    integer NOT NULL,
    noted_at   timestamptz NOT NULL DEFAULT now()
);
