import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { unary } from '@sightline/grpc-kit';
import { queryV1 } from '@sightline/proto';
import { defineServiceModule } from '@sightline/runtime';
import { siteActivity } from './site-activity.js';

/**
 * The query service: reads the events store to answer statistics questions;
 * stateless. `POST /query` lands with the query issue; today it answers SiteActivity.
 */
export const queryModule = defineServiceModule({
  name: 'query',
  needs: { events: true },
  async start({ events, log }) {
    const implementation: queryV1.QueryServiceServer = {
      siteActivity: unary('Query/SiteActivity', log, (request: queryV1.SiteActivityRequest) => siteActivity(events, request)),
    };
    return { services: [{ definition: queryV1.QueryServiceService, implementation: implementation as unknown as UntypedServiceImplementation }], stop: async () => {} };
  },
});
