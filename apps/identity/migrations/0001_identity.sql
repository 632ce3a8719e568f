-- Identity: accounts, one-time codes, terms acceptances, API keys, usage counters.
-- Every timestamp is written by the service from its clock (no DEFAULT now()), so
-- tests that move time and the rows they read agree.

CREATE TABLE accounts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- normalized by @sightline/address-rules: lowercase, ASCII (punycode) domain
  email text NOT NULL,
  created_at timestamptz NOT NULL,
  trial_started_at timestamptz,
  trial_ends_at timestamptz,
  subscription_status text NOT NULL DEFAULT 'none',
  subscription_updated_at timestamptz,
  CONSTRAINT accounts_email_unique UNIQUE (email),
  CONSTRAINT accounts_email_normalized CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254 AND position('@' IN email) > 1),
  CONSTRAINT accounts_trial_complete CHECK ((trial_started_at IS NULL) = (trial_ends_at IS NULL)),
  CONSTRAINT accounts_trial_order CHECK (trial_ends_at IS NULL OR trial_ends_at > trial_started_at),
  CONSTRAINT accounts_subscription_status CHECK (subscription_status IN ('none', 'active', 'past_due', 'canceled')),
  CONSTRAINT accounts_subscription_dated CHECK ((subscription_status = 'none') = (subscription_updated_at IS NULL))
);

-- One row per code sent. Only the newest row of an address can be redeemed;
-- `superseded` records that a newer code replaced this one.
CREATE TABLE otp_codes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  -- HMAC-SHA256(SECRET_KEY, email, code), hex: a leaked table cannot be brute-forced offline
  code_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  failed_attempts integer NOT NULL DEFAULT 0,
  superseded boolean NOT NULL DEFAULT false,
  CONSTRAINT otp_codes_hash_format CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  CONSTRAINT otp_codes_expiry_order CHECK (expires_at > created_at),
  CONSTRAINT otp_codes_failed_attempts CHECK (failed_attempts >= 0)
);
CREATE INDEX otp_codes_email_newest ON otp_codes (email, id DESC);
CREATE INDEX otp_codes_created_at ON otp_codes (created_at);

-- Legal record of each acceptance (spec: terms version, IP and User-Agent). Kept.
CREATE TABLE terms_acceptances (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  terms_version text NOT NULL,
  ip text NOT NULL,
  user_agent text NOT NULL,
  accepted_at timestamptz NOT NULL,
  CONSTRAINT terms_acceptances_version CHECK (length(terms_version) BETWEEN 1 AND 50),
  CONSTRAINT terms_acceptances_user_agent CHECK (length(user_agent) <= 1000)
);
CREATE INDEX terms_acceptances_account ON terms_acceptances (account_id, accepted_at DESC);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  -- first 12 characters of the token, to recognise a key
  prefix text NOT NULL,
  -- SHA-256 of the token, hex (the token is 256 random bits: no offline search)
  secret_hash text NOT NULL,
  permissions text[] NOT NULL,
  -- set: the key reaches this site only; null: every site of the account
  site_id bigint,
  -- how the key came to be: verify-otp, the keys API, or the operator CLI
  origin text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_by_key_id text REFERENCES api_keys (id),
  CONSTRAINT api_keys_secret_hash_unique UNIQUE (secret_hash),
  CONSTRAINT api_keys_id_format CHECK (id ~ '^key_[0-9A-Za-z]{16,32}$'),
  CONSTRAINT api_keys_name_length CHECK (length(name) BETWEEN 1 AND 100),
  CONSTRAINT api_keys_prefix_format CHECK (prefix ~ '^sl_[0-9A-Za-z]{9}$'),
  CONSTRAINT api_keys_secret_hash_format CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  CONSTRAINT api_keys_known_permissions CHECK (
    cardinality(permissions) > 0
    AND permissions <@ ARRAY['stats:read', 'sites:write', 'keys:write', 'billing:write']::text[]
  ),
  CONSTRAINT api_keys_site_id CHECK (site_id IS NULL OR site_id > 0),
  CONSTRAINT api_keys_origin CHECK (origin IN ('registration', 'api', 'operator')),
  CONSTRAINT api_keys_expiry_order CHECK (expires_at > created_at)
);
-- listing and the active-key cap read an account's unrevoked keys
CREATE INDEX api_keys_account_unrevoked ON api_keys (account_id, created_at DESC) WHERE revoked_at IS NULL;

-- Fixed-window counters shared by every replica: registration limits and the
-- gateways' hourly budgets (ReportUsage). Old windows are swept by the janitor.
CREATE TABLE usage_counters (
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (bucket, window_start),
  CONSTRAINT usage_counters_bucket_length CHECK (length(bucket) BETWEEN 1 AND 300),
  CONSTRAINT usage_counters_count CHECK (count >= 0)
);
CREATE INDEX usage_counters_window_start ON usage_counters (window_start);
