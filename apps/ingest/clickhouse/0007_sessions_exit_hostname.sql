-- The exit page's hostname (the last pageview's; `hostname` is the visit's first
-- event's), so a hostname filter with an exit_page breakdown keeps the sessions that
-- left from that hostname (SEMANTICS, Dimensions and filters). Rows written before
-- this column read the visit's first hostname, the best the stored row knows.
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS exit_hostname LowCardinality(String) DEFAULT hostname AFTER exit_page
