-- Import jobs: history from another analytics tool. Sites owns the record (who may
-- see or delete it follows the site's reach rules); ingest stages and writes the rows
-- and reports progress on import.progress. `progress_seq` is the seq of the last
-- report applied: an older or repeated report changes nothing.
CREATE TABLE import_jobs (
  id            bigserial PRIMARY KEY,
  site_id       bigint NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  format        text NOT NULL CHECK (format IN ('sightline', 'ga4-bigquery')),
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  accepted      bigint NOT NULL DEFAULT 0,
  rejected      bigint NOT NULL DEFAULT 0,
  errors        jsonb NOT NULL DEFAULT '[]'::jsonb,
  failure       text NOT NULL DEFAULT '' CHECK (length(failure) <= 1000),
  range_start   timestamptz,
  range_end     timestamptz,
  progress_seq  bigint NOT NULL DEFAULT 0,
  created_by    bigint NOT NULL,
  created_at    timestamptz NOT NULL,
  started_at    timestamptz,
  finished_at   timestamptz
);
CREATE INDEX import_jobs_site ON import_jobs (site_id, id DESC);
