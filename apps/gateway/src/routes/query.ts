import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { parseQueryRequest } from '@sightline/query-contract';
import { principalOf } from '../auth/authenticate.js';
import { actorOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { PropsAnswer, PropsQuerystring, QueryAnswer, QueryBody } from '../schemas/query-schemas.js';
import { assertReportsReadable } from '../reports/report-access.js';
import type { ReportContextCache } from '../caches/report-context-cache.js';
import type { ReportQueries, ReportSite } from '../reports/report-queries.js';

export interface QueryRouteOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  /** the query service behind the answer cache (shared with the share routes) */
  reports: ReportQueries;
  deadlineMs: number;
  /** plan state and confirmed reach for REPORT_CACHE_TTL_MS, and while sites or identity restarts (see ReportContextCache) */
  cache: ReportContextCache;
}

const security = [{ apiKey: [] }];

/**
 * POST /api/v1/query and GET /api/v1/props. The gateway resolves everything about
 * the caller and the site — site_id from the key, reach and key scope (GetSite),
 * tracking and plan state of the owner (GetPlan), goals when event:goal asks for
 * them — and hands the query service a plain report site; nothing runs on the
 * events store before those checks pass. GetSite and GetPlan (unless cached) and
 * ListGoals run side by side when the site's owner is already known. The answer comes
 * through ReportQueries (the answer cache), like every other query route's.
 */
export const queryRoutes: FastifyPluginAsyncZod<QueryRouteOptions> = async (app, { sites, identity, reports, deadlineMs, cache }) => {
  // the dashboard's session may read here too (cookie + X-CSRF-Token)
  const read = { write: false, auth: { permission: 'stats:read' as const, session: true } };

  async function siteOf(request: FastifyRequest, requestedSiteId: number | undefined, withGoals: boolean): Promise<ReportSite> {
    const keySite = principalOf(request).siteId;
    const siteId = requestedSiteId ?? keySite;
    if (siteId === undefined) throw new ApiError('site_id_required');
    const options = callOptions(request, deadlineMs);
    const actor = actorOf(request);
    const goalsCall = withGoals ? callUnary(sites, sites.listGoals, 'Sites/ListGoals', { actor, siteId }, options) : undefined;
    // a reach refusal from GetSite is the answer; the goals call's own failure is reported only after it
    goalsCall?.catch(() => undefined);
    const { site, plan } = await cache.resolve(actor, siteId, {
      getSite: async () => (await callUnary(sites, sites.getSite, 'Sites/GetSite', { actor, siteId }, options)).site!,
      getPlan: (accountId) => callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId }, options),
    });
    assertReportsReadable(plan);
    const goals = goalsCall ? (await goalsCall).goals : [];
    return { siteId, timezone: site.timezone, weekStart: site.weekStart, goals };
  }

  app.post(
    '/api/v1/query',
    {
      config: read,
      schema: {
        summary: 'Aggregates, time series and breakdowns',
        description: [
          'No dimension → one aggregate row; a time dimension → one row per bucket, oldest first, zero-filled; any other dimension → a breakdown ranked by visitors (or the first metric) desc, then value asc, with `meta`.',
          'Checks in order: site_id (site_id_required), reach (404 unknown_site, 403 key_not_scoped), tracking (403 tracking_inactive), plan (403 plan_expired), then the query itself (400 codes).',
          'A report that needs more memory than one query may use (`QUERY_MAX_MEMORY_BYTES`, 1 GiB by default) answers 422 `query_too_large`: narrow the date range, add filters or ask for fewer rows. 503 `unavailable` when the analytics engine as a whole is short of memory: retry shortly.',
          'Also: time:minute pairs only with realtime and time:hour covers at most 31 days (invalid_interval); a partial first month is labelled with the window’s first day like a partial week; realtime echoes date_range as ISO instants; percent changes are integers; limits of 20 filters × 100 values × 1000 characters.',
        ].join('\n\n'),
        tags: ['query'],
        security,
        body: QueryBody,
        response: { 200: QueryAnswer, ...errorResponses(400, 401, 403, 404, 413, 422, 429, 503) },
      },
    },
    async (request) => {
      const { site_id: siteId, ...body } = request.body;
      const site = await siteOf(request, siteId, body.dimensions?.includes('event:goal') === true);
      // the query's own codes come after the site's (the order the description states)
      return reports.run(request, site, parseQueryRequest(body));
    },
  );

  app.get(
    '/api/v1/props',
    {
      config: read,
      schema: {
        summary: 'Custom property keys of a site',
        description:
          'The property keys recorded in the window with the number of events carrying each, most used first. Same site and date-range rules, and the same memory bound (422 `query_too_large`), as POST /query.',
        tags: ['query'],
        security,
        querystring: PropsQuerystring,
        response: { 200: PropsAnswer, ...errorResponses(400, 401, 403, 404, 422, 429, 503) },
      },
    },
    async (request) => {
      const site = await siteOf(request, request.query.site_id, false);
      return reports.props(request, site, request.query.date_range);
    },
  );
};
