-- Widget credentials. A site's key is derived, never stored: `wk_` + base64url of
-- HMAC-SHA256(SECRET_KEY, "widget:" + site_id + ":" + salt). The row holds the salt
-- (rotation = a new salt) and the key's SHA-256 for lookups, so the database alone
-- cannot produce a key. Created on first use; gone with the site.
CREATE TABLE widget_keys (
  site_id     bigint PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
  salt        text NOT NULL CHECK (length(salt) BETWEEN 16 AND 64),
  key_sha256  text NOT NULL CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
  created_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX widget_keys_key_sha256 ON widget_keys (key_sha256);
