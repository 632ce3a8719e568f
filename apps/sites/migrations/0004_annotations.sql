-- Annotations: dated notes on a site's time axis ("launched pricing page", "outage").
-- A note is either a whole local day (`day`, in the site's time zone, so it follows a
-- change of time zone) or an instant (`at`). The author is the writing account and key
-- (or dashboard session); their address stays in identity and is looked up on read.
CREATE TABLE annotations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_id bigint NOT NULL REFERENCES sites (id),
  day date,
  at timestamptz,
  text text NOT NULL,
  author_account_id bigint NOT NULL,
  author_key_id text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT annotations_one_moment CHECK ((day IS NULL) <> (at IS NULL)),
  CONSTRAINT annotations_text_length CHECK (length(text) BETWEEN 1 AND 280),
  CONSTRAINT annotations_author_key_length CHECK (length(author_key_id) BETWEEN 1 AND 200)
);
-- ListAnnotations scans one site's notes (at most LIMITS.annotationsPerSite of them)
CREATE INDEX annotations_site ON annotations (site_id, id);
