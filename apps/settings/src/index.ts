import type { ServiceModule } from '@sightline/runtime';

/**
 * The settings service. Owns tracking settings and counting filters; publishes settings.changed.
 * Its gRPC contract grows in proto/sightline/settings/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 */
export const settingsModule: ServiceModule = {
  name: 'settings',
  needs: { db: true, bus: true },
  dbSchema: 'settings',
  dbMigrationsDir: new URL('../migrations', import.meta.url).pathname,
  async start() {
    return { services: [], stop: async () => {} };
  },
};
