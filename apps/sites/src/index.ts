import { defineServiceModule } from '@sightline/runtime';
import { SITES_MIGRATIONS_DIR, SITES_SCHEMA } from './migrations-dir.js';
import { SITES_NEEDS, startSites } from './start-sites.js';

/**
 * The sites service: sites, memberships and roles, goals, funnels, idempotency
 * records, the audit trail, and the outbox that announces deletions on the bus
 * (proto/sightline/sites/v1).
 */
export const sitesModule = defineServiceModule({
  name: 'sites',
  needs: SITES_NEEDS,
  dbSchema: SITES_SCHEMA,
  dbMigrationsDir: SITES_MIGRATIONS_DIR,
  start: (deps) => startSites(deps),
});
