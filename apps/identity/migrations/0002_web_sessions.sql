-- Browser sessions of the dashboard (StartWebSession). The token lives in the
-- browser's HttpOnly cookie; only its SHA-256 is stored here. A session can only
-- read (stats and the site list) and never becomes an API key.
CREATE TABLE web_sessions (
  -- 'ses_' + 20 base62 characters: public (the principal's key_id, audit and budgets), not the secret
  id text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  -- SHA-256 of the token, hex (the token is 256 random bits: no offline search)
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  -- fixed at sign-in (30 days); use does not extend it
  expires_at timestamptz NOT NULL,
  -- written at most once a minute, when a gateway verifies the session
  last_seen_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CONSTRAINT web_sessions_token_hash_unique UNIQUE (token_hash),
  CONSTRAINT web_sessions_id_format CHECK (id ~ '^ses_[0-9A-Za-z]{20}$'),
  CONSTRAINT web_sessions_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  CONSTRAINT web_sessions_expiry_order CHECK (expires_at > created_at)
);
-- sign-in's cap and "sign out everywhere" read an account's live sessions
CREATE INDEX web_sessions_account_live ON web_sessions (account_id, created_at DESC) WHERE revoked_at IS NULL;
-- the janitor deletes by expiry
CREATE INDEX web_sessions_expires_at ON web_sessions (expires_at);
