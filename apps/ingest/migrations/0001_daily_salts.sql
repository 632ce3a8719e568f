-- Daily salts of the visitor hash. One row per UTC day, created by whichever replica
-- needs it first (INSERT … ON CONFLICT DO NOTHING, then read: every replica gets the
-- same salt). Only today's and yesterday's are kept: once a day's salt is deleted,
-- nobody can link that day's visitor ids to a person again.
CREATE TABLE ingest.daily_salts (
    day        date PRIMARY KEY,
    salt       bytea NOT NULL CHECK (octet_length(salt) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
