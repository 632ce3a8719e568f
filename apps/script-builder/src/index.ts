import type { ServiceModule } from '@sightline/runtime';

/**
 * The script-builder service. Owns the feature catalogue and built tracker bundles; rebuilds on settings.changed.
 * Its gRPC contract grows in proto/sightline/script_builder/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 */
export const scriptBuilderModule: ServiceModule = {
  name: 'script-builder',
  needs: { bus: true },
  async start() {
    return { services: [], stop: async () => {} };
  },
};
