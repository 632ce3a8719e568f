-- Sites: sites, memberships, goals, funnels, idempotency records, the audit trail
-- and the outbox of bus messages. Every timestamp is written by the service from its
-- clock (no DEFAULT now()), so tests that move time and the rows they read agree.
-- Account ids are identity's (identity.accounts.id); this schema has no foreign key
-- to identity: each service owns its schema and may move to its own database.

-- Per-account bookkeeping of this service (not identity's accounts). Its row is
-- locked by CreateSite, so an account's creations take turns: the site cap and
-- "first paid site" are exact under concurrency.
CREATE TABLE accounts (
  account_id bigint PRIMARY KEY,
  created_at timestamptz NOT NULL,
  -- set when the account's first non-hobby site was created (its trial starts); kept when that site is deleted
  first_paid_site_at timestamptz,
  CONSTRAINT accounts_account_id CHECK (account_id > 0)
);

CREATE TABLE sites (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- the normalized origin: scheme://host[:port], host lowercase ASCII (punycode), default port dropped
  name text NOT NULL,
  -- unguessable: whoever holds it reads the stats when the public dashboard is on
  hash text NOT NULL,
  -- opaque and stable: names the site in its script URL; never derived from the id
  tracking_key text NOT NULL,
  timezone text NOT NULL,
  week_start smallint NOT NULL,
  hobby boolean NOT NULL,
  owner_account_id bigint NOT NULL REFERENCES accounts (account_id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- two accounts may track the same origin; one account only once
  CONSTRAINT sites_owner_name_unique UNIQUE (owner_account_id, name),
  CONSTRAINT sites_hash_unique UNIQUE (hash),
  CONSTRAINT sites_tracking_key_unique UNIQUE (tracking_key),
  CONSTRAINT sites_name_origin CHECK (name ~ '^https?://[a-z0-9._-]+(:[0-9]{1,5})?$' AND length(name) <= 2048),
  CONSTRAINT sites_hash_format CHECK (hash ~ '^[0-9A-Za-z]{22,64}$'),
  CONSTRAINT sites_tracking_key_format CHECK (tracking_key ~ '^[0-9A-Za-z]{22,64}$'),
  CONSTRAINT sites_timezone_length CHECK (length(timezone) BETWEEN 1 AND 64),
  CONSTRAINT sites_week_start CHECK (week_start BETWEEN 0 AND 6)
);

-- Who reaches a site and with which role. The owner has a row too (role 'owner',
-- exactly one per site), so "reach" is one join.
CREATE TABLE site_members (
  site_id bigint NOT NULL REFERENCES sites (id),
  account_id bigint NOT NULL,
  -- as resolved by the gateway through identity when added; '' for the owner (not known here)
  email text NOT NULL,
  role text NOT NULL,
  added_at timestamptz NOT NULL,
  added_by_account_id bigint,
  PRIMARY KEY (site_id, account_id),
  CONSTRAINT site_members_role CHECK (role IN ('owner', 'admin', 'member')),
  CONSTRAINT site_members_email_length CHECK (length(email) <= 254),
  CONSTRAINT site_members_account_id CHECK (account_id > 0)
);
CREATE UNIQUE INDEX site_members_one_owner ON site_members (site_id) WHERE role = 'owner';
-- ListSites: the sites an account reaches
CREATE INDEX site_members_account ON site_members (account_id, site_id);

CREATE TABLE goals (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_id bigint NOT NULL REFERENCES sites (id),
  event_name text,
  page_path text,
  display_name text NOT NULL,
  created_at timestamptz NOT NULL,
  CONSTRAINT goals_one_kind CHECK ((event_name IS NULL) <> (page_path IS NULL)),
  CONSTRAINT goals_event_name_length CHECK (event_name IS NULL OR length(event_name) BETWEEN 1 AND 120),
  CONSTRAINT goals_page_path_format CHECK (page_path IS NULL OR (left(page_path, 1) = '/' AND length(page_path) <= 2048)),
  CONSTRAINT goals_display_name_length CHECK (length(display_name) BETWEEN 1 AND 120)
);
-- goal_exists: display names are unique per site, ignoring case
CREATE UNIQUE INDEX goals_site_display_name ON goals (site_id, lower(display_name));

CREATE TABLE funnels (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_id bigint NOT NULL REFERENCES sites (id),
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  CONSTRAINT funnels_name_length CHECK (length(name) BETWEEN 1 AND 120)
);
-- funnel_exists: names are unique per site, ignoring case
CREATE UNIQUE INDEX funnels_site_name ON funnels (site_id, lower(name));

-- The goal reference has no cascade: a goal in use cannot disappear under a funnel.
CREATE TABLE funnel_steps (
  funnel_id bigint NOT NULL REFERENCES funnels (id),
  position smallint NOT NULL,
  goal_id bigint NOT NULL REFERENCES goals (id),
  PRIMARY KEY (funnel_id, position),
  CONSTRAINT funnel_steps_distinct_goals UNIQUE (funnel_id, goal_id),
  CONSTRAINT funnel_steps_position CHECK (position BETWEEN 1 AND 8)
);
-- DeleteGoal: which funnels use a goal
CREATE INDEX funnel_steps_goal ON funnel_steps (goal_id);

-- Idempotency-Key records of CreateSite, per account, kept 24 hours. Claimed in a
-- transaction of its own (state running); completed in the transaction that creates
-- the site, so a site never exists without its record or the other way round.
CREATE TABLE idempotency_records (
  account_id bigint NOT NULL,
  idempotency_key text NOT NULL,
  -- SHA-256 (hex) of the canonical request fields
  fingerprint text NOT NULL,
  state text NOT NULL,
  -- random per claim: only the current claimant may complete or release it
  claim_token text NOT NULL,
  claimed_at timestamptz NOT NULL,
  completed_at timestamptz,
  expires_at timestamptz NOT NULL,
  response_status integer,
  -- the stored answer (site + first_paid_site) replayed to repeats
  response jsonb,
  PRIMARY KEY (account_id, idempotency_key),
  CONSTRAINT idempotency_records_state CHECK (state IN ('running', 'completed')),
  CONSTRAINT idempotency_records_completed CHECK ((state = 'completed') = (completed_at IS NOT NULL AND response IS NOT NULL AND response_status IS NOT NULL)),
  CONSTRAINT idempotency_records_key_length CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  CONSTRAINT idempotency_records_fingerprint CHECK (fingerprint ~ '^[0-9a-f]{64}$')
);
CREATE INDEX idempotency_records_expires_at ON idempotency_records (expires_at);

-- Every write, recorded in the write's transaction. No foreign key to sites: the
-- entries of a deleted site stay on record (no longer reachable through the API).
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  action text NOT NULL,
  site_id bigint NOT NULL,
  account_id bigint NOT NULL,
  key_id text NOT NULL,
  ip text NOT NULL,
  user_agent text NOT NULL,
  request_id text NOT NULL,
  created_at timestamptz NOT NULL,
  details jsonb NOT NULL,
  CONSTRAINT audit_log_action CHECK (action ~ '^[a-z]+(\.[a-z_]+)+$' AND length(action) <= 100),
  CONSTRAINT audit_log_lengths CHECK (length(key_id) <= 200 AND length(ip) <= 100 AND length(user_agent) <= 1000 AND length(request_id) <= 200)
);
-- ListAudit pages a site's entries newest first
CREATE INDEX audit_log_site ON audit_log (site_id, id DESC);

-- Transactional outbox: a bus message is written in the transaction of the change it
-- announces; the relay publishes it afterwards (at least once) and marks it.
CREATE TABLE outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- the bus deduplication id: unique across databases (ids restart in a new database,
  -- and a NATS server shared by several would drop a repeated msgId as a duplicate)
  message_id uuid NOT NULL DEFAULT gen_random_uuid(),
  subject text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  published_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  CONSTRAINT outbox_subject_length CHECK (length(subject) BETWEEN 1 AND 200)
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;
