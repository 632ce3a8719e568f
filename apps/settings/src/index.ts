import { defineServiceModule } from '@sightline/runtime';
import { SETTINGS_MIGRATIONS_DIR, SETTINGS_SCHEMA } from './migrations-dir.js';
import { SETTINGS_NEEDS, startSettings } from './start-settings.js';

/**
 * The settings service: per-site tracking selection, hostname/IP/country filters and
 * the public-dashboard flag (proto/sightline/settings/v1). Every write announces
 * itself on `settings.changed` through an outbox; `site.deleted` drops a site's settings.
 */
export const settingsModule = defineServiceModule({
  name: 'settings',
  needs: SETTINGS_NEEDS,
  dbSchema: SETTINGS_SCHEMA,
  dbMigrationsDir: SETTINGS_MIGRATIONS_DIR,
  start: (deps) => startSettings(deps),
});
