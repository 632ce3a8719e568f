import type { ServiceModule } from '@sightline/runtime';

/**
 * The identity service. Owns accounts, one-time codes, terms acceptances, API keys and plan state.
 * Its gRPC contract grows in proto/sightline/identity/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 */
export const identityModule: ServiceModule = {
  name: 'identity',
  needs: { db: true, bus: true, mail: true },
  dbSchema: 'identity',
  dbMigrationsDir: new URL('../migrations', import.meta.url).pathname,
  async start() {
    return { services: [], stop: async () => {} };
  },
};
