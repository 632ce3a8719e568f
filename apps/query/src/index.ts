import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { unary } from '@sightline/grpc-kit';
import { queryV1 } from '@sightline/proto';
import { defineServiceModule } from '@sightline/runtime';
import { geoLabels } from '@sightline/geo';
import { BoundedReads } from './bounded-reads.js';
import { exportEventsHandler } from './export/export-handler.js';
import { handleFunnelReport, handleListProps, handleQuery } from './query-service.js';
import { siteActivity } from './site-activity.js';

/**
 * The query service: reads the events store to answer statistics questions;
 * stateless: every answer is a function of the request, the report site the gateway
 * resolved, and the events store (see src/query for the pipeline).
 */
export const queryModule = defineServiceModule({
  name: 'query',
  needs: { events: true },
  async start({ events: store, log, config }) {
    // every read carries the per-report memory limit; a breach answers 422 query_too_large
    const events = new BoundedReads(store, config.QUERY_MAX_MEMORY_BYTES);
    const implementation: queryV1.QueryServiceServer = {
      siteActivity: unary('Query/SiteActivity', log, (request: queryV1.SiteActivityRequest) => siteActivity(events, request)),
      // readable names for visit:country/region/city rows come from the same geo data ingest codes with
      query: unary('Query/Query', log, (request: queryV1.QueryRequest) =>
        handleQuery(
          { events, geo: geoLabels, ...(config.EVENTS_RETENTION_DAYS !== undefined ? { retentionDays: config.EVENTS_RETENTION_DAYS } : {}) },
          request,
        ),
      ),
      listProps: unary('Query/ListProps', log, (request: queryV1.ListPropsRequest) => handleListProps(events, request)),
      exportEvents: exportEventsHandler(events, log),
      funnelReport: unary('Query/FunnelReport', log, (request: queryV1.FunnelReportRequest) => handleFunnelReport(events, request)),
    };
    return {
      services: [{ definition: queryV1.QueryServiceService, implementation: implementation as unknown as UntypedServiceImplementation }],
      stop: async () => {},
    };
  },
});

// What the service accepts, for the launcher's test that holds the OpenAPI document and README to it.
export { DIMENSIONS, PROPS_PREFIX, PROP_KEY_MAX, propsDimension } from './catalogue/dimensions.js';
export { FILTER_FIELDS, FILTER_OPERATORS } from './catalogue/filter-fields.js';
export { ALL_SHAPE_METRICS } from './catalogue/metrics.js';
export { EARLIEST_DATE, LATEST_DATE } from './query/resolve-dates.js';

// The pipeline itself, for the query benchmark (load-tests/bench/query.ts).
export { runQuery } from './query/run-query.js';
export { runFunnelReport } from './funnel/run-funnel.js';
export { funnelStatement } from './funnel/funnel-sql.js';
export { intlGeoLabels } from './geo-labels.js';

// The export's statement, for the export bench's baseline (load-tests/bench/export.ts).
export { STORED_EVENT_SELECT } from './export/export-columns.js';
