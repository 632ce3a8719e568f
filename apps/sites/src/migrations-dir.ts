/** The sites schema's SQL migrations (apps/sites/migrations). */
export const SITES_SCHEMA = 'sites';
export const SITES_MIGRATIONS_DIR = new URL('../migrations', import.meta.url).pathname;
