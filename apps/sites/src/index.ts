import type { ServiceModule } from '@sightline/runtime';

/**
 * The sites service. Owns sites, memberships, goals, funnels, idempotency records, the audit trail and import jobs.
 * Its gRPC contract grows in proto/sightline/sites/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 */
export const sitesModule: ServiceModule = {
  name: 'sites',
  needs: { db: true, bus: true },
  dbSchema: 'sites',
  dbMigrationsDir: new URL('../migrations', import.meta.url).pathname,
  async start() {
    return { services: [], stop: async () => {} };
  },
};
