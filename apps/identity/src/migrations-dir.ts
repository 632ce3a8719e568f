/** The identity schema's SQL migrations (apps/identity/migrations). */
export const IDENTITY_SCHEMA = 'identity';
export const IDENTITY_MIGRATIONS_DIR = new URL('../migrations', import.meta.url).pathname;
