-- The visit's screen size class (Mobile, Tablet, Laptop, Desktop; '' when the tracker
-- sent no viewport width), a session attribute like device: every events, sessions and
-- import_staging row carries it (libs/events-schema/src/attributes.ts). Rows written
-- before this column read '' (not recorded). ZSTD over the dictionary indexes, as for
-- the other attributes repeated in runs (0005).
ALTER TABLE events ADD COLUMN IF NOT EXISTS screen LowCardinality(String) CODEC(ZSTD(1)) AFTER device;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS screen LowCardinality(String) CODEC(ZSTD(1)) AFTER device;
ALTER TABLE import_staging ADD COLUMN IF NOT EXISTS screen LowCardinality(String) AFTER device
