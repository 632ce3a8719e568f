/** The settings schema's SQL migrations (apps/settings/migrations). */
export const SETTINGS_SCHEMA = 'settings';
export const SETTINGS_MIGRATIONS_DIR = new URL('../migrations', import.meta.url).pathname;
