-- Settings: per-site tracking selection, counting filters, the public-dashboard flag,
-- and the outbox of settings.changed messages. Site ids are the sites service's
-- (sites.sites.id); no foreign key across schemas. A site without rows here has the
-- defaults (standard preset, version 1, empty lists, dashboard off). Timestamps come
-- from the service's clock.

-- One row per site that ever had a setting written. Every write locks it first, so
-- one site's writes take turns (version increments and list replacements are exact).
CREATE TABLE site_settings (
  site_id bigint PRIMARY KEY,
  -- null: never set (the catalogue defaults apply)
  tracking_features text[],
  tracking_version integer NOT NULL DEFAULT 1,
  -- null: never set (off, unless the hobby rule makes it public)
  public_dashboard boolean,
  updated_at timestamptz NOT NULL,
  CONSTRAINT site_settings_site_id CHECK (site_id > 0),
  CONSTRAINT site_settings_version CHECK (tracking_version >= 1),
  CONSTRAINT site_settings_features CHECK (tracking_features IS NULL OR cardinality(tracking_features) <= 100)
);

-- Hostname filter: `kind` allowed or blocked; position keeps the order given.
CREATE TABLE hostname_filters (
  site_id bigint NOT NULL,
  kind text NOT NULL,
  hostname text NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (site_id, kind, hostname),
  CONSTRAINT hostname_filters_kind CHECK (kind IN ('allowed', 'blocked')),
  CONSTRAINT hostname_filters_length CHECK (length(hostname) BETWEEN 1 AND 255)
);

CREATE TABLE blocked_ips (
  site_id bigint NOT NULL,
  address text NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (site_id, address),
  CONSTRAINT blocked_ips_length CHECK (length(address) BETWEEN 1 AND 64)
);

-- Country filter: created_at is when the code was first put on that list (kept by later PUTs that keep it).
CREATE TABLE country_filters (
  site_id bigint NOT NULL,
  kind text NOT NULL,
  code text NOT NULL,
  position integer NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (site_id, kind, code),
  CONSTRAINT country_filters_kind CHECK (kind IN ('allowed', 'blocked')),
  CONSTRAINT country_filters_code CHECK (code ~ '^[A-Z]{2}$')
);

-- Transactional outbox (same design as sites.outbox): written in the transaction of
-- the change it announces; the relay publishes it afterwards (at least once).
CREATE TABLE outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- the bus deduplication id, unique across databases
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
