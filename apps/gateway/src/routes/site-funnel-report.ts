import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { parseFunnelQuery, type FunnelStep } from '@sightline/query-contract';
import { actorOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { FunnelReportAnswer, FunnelReportQuerystring, FUNNEL_REPORT_DESCRIPTION } from '../schemas/funnel-report-schemas.js';
import { SiteParams, siteIdOf } from '../schemas/sites-schemas.js';
import { assertReportsReadable } from '../reports/report-access.js';
import type { ReportContextCache } from '../caches/report-context-cache.js';
import type { ReportQueries } from '../reports/report-queries.js';

export interface FunnelReportRouteOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  reports: ReportQueries;
  deadlineMs: number;
  cache: ReportContextCache;
}

const security = [{ apiKey: [] }];
const FunnelParams = SiteParams.extend({ funnel_id: z.string().max(20) });

/**
 * GET /api/v1/sites/{id}/funnels/{funnel_id}/report. The checks of POST /query, in
 * its order — reach and key scope (GetSite), tracking and plan (GetPlan) — then the
 * funnel (GetFunnel: 404 unknown_funnel), then the window, filters and compare (POST
 * /query's validator, its 400 codes); only then does the query service run the
 * funnel's one statement per window, through the answer cache like every report.
 */
export const funnelReportRoutes: FastifyPluginAsyncZod<FunnelReportRouteOptions> = async (app, { sites, identity, reports, deadlineMs, cache }) => {
  app.get(
    '/api/v1/sites/:id/funnels/:funnel_id/report',
    {
      // the dashboard's session may read it too (cookie + X-CSRF-Token)
      config: { write: false, auth: { permission: 'stats:read' as const, session: true } },
      schema: {
        summary: 'A funnel’s report',
        description: FUNNEL_REPORT_DESCRIPTION,
        tags: ['funnels'],
        security,
        params: FunnelParams,
        querystring: FunnelReportQuerystring,
        response: { 200: FunnelReportAnswer, ...errorResponses(400, 401, 403, 404, 422, 429, 503) },
      },
    },
    async (request) => {
      const siteId = siteIdOf(request.params.id);
      const funnelId = funnelIdOf(request.params.funnel_id);
      const options = callOptions(request, deadlineMs);
      const actor = actorOf(request);
      // the funnel is read beside the site; a reach refusal from GetSite is the answer, the funnel's own failure comes after it
      const funnelCall = funnelId === undefined ? undefined : callUnary(sites, sites.getFunnel, 'Sites/GetFunnel', { actor, siteId, funnelId }, options);
      funnelCall?.catch(() => undefined);
      const { site, plan } = await cache.resolve(actor, siteId, {
        getSite: async () => (await callUnary(sites, sites.getSite, 'Sites/GetSite', { actor, siteId }, options)).site!,
        getPlan: (accountId) => callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId }, options),
      });
      assertReportsReadable(plan);
      if (!funnelCall) throw new ApiError('unknown_funnel');
      const funnel = await funnelCall;
      const query = parseFunnelQuery(request.query);
      const steps: FunnelStep[] = funnel.steps.map((goal) => ({
        goal_id: goal.goalId,
        name: goal.displayName,
        ...(goal.pagePath !== undefined ? { page_path: goal.pagePath } : { event_name: goal.eventName ?? '' }),
      }));
      return reports.funnel(
        request,
        { siteId, timezone: site.timezone, weekStart: site.weekStart, goals: [] },
        { funnel: { funnel_id: funnel.funnelId, name: funnel.name, steps }, ...query },
      );
    },
  );
};

/** A funnel id from the path: anything that is not one is no funnel (404 unknown_funnel, after the site's checks). */
function funnelIdOf(raw: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}
