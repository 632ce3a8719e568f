/** ingest's PostgreSQL schema (daily salts) and its two migration folders. */
export const INGEST_SCHEMA = 'ingest';
export const INGEST_MIGRATIONS_DIR = new URL('../migrations', import.meta.url).pathname;
export const INGEST_EVENT_MIGRATIONS_DIR = new URL('../clickhouse', import.meta.url).pathname;
