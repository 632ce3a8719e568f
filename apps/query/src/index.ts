import type { ServiceModule } from '@sightline/runtime';

/**
 * The query service. Reads the events store to answer statistics queries; stateless.
 * Its gRPC contract grows in proto/sightline/query/v1 as its features land;
 * until then it serves health and ServiceInfo, with readiness tied to its stores.
 */
export const queryModule: ServiceModule = {
  name: 'query',
  needs: { events: true },
  async start() {
    return { services: [], stop: async () => {} };
  },
};
