import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { parseQueryRequest } from '@sightline/query-contract';
import { assertReportsReadable } from '../reports/report-access.js';
import type { ReportQueries } from '../reports/report-queries.js';
import { AnnotationListQuery, SharedAnnotationList, toSharedAnnotationObject, windowOf } from '../schemas/annotation-schemas.js';
import { errorResponses } from '../schemas/error-responses.js';
import { PropsAnswer, QueryAnswer, QueryBody } from '../schemas/query-schemas.js';
import { limitClient, type ClientRateLimit } from '../share/client-rate-limit.js';
import type { ShareLookup, SharedSite } from '../share/share-sites.js';
import type { sitesV1 } from '@sightline/proto';

export interface ShareRouteOptions {
  lookup: ShareLookup;
  reports: ReportQueries;
  /** SHARE_RATE_LIMIT_PER_MINUTE per client address (the share page counts too) */
  rateLimit: ClientRateLimit;
  /** Sites/ListSharedAnnotations, asked only once the hash proved the dashboard public */
  annotations: (request: FastifyRequest, siteId: number, window: sitesV1.AnnotationWindow) => Promise<sitesV1.ListAnnotationsResponse>;
}

// up to the router's own bound: any hash that names no public dashboard is the one 404, malformed ones included
export const ShareParams = z.object({ hash: z.string().max(200).describe('The site’s share hash (`hash` of GET /sites/{id}).') });

const ShareSiteObject = z
  .object({
    domain: z.string().describe('The host the site counts.'),
    timezone: z.string().describe('IANA time zone the windows follow.'),
    goals: z
      .array(z.object({ display_name: z.string(), event_name: z.string().optional(), page_path: z.string().optional() }))
      .describe('The site’s goals, in creation order.'),
  })
  .meta({ id: 'ShareSite' });

const ShareQueryBody = QueryBody.omit({ site_id: true }).meta({
  id: 'ShareQueryRequest',
  additionalProperties: false,
  description: 'POST /query’s body without `site_id` (sending one → 400 invalid_request): the hash names the site.',
});

const SharePropsQuerystring = z.strictObject({
  date_range: z.string().max(40).describe('`Nd`, `month`, `realtime`, or `start,end` (two YYYY-MM-DD dates from 1900-01-01 to 2299-12-31).'),
});

const NOT_SHARED = 'An unknown hash and a site whose public dashboard is off answer the same 404 `unknown_site`.';
const LIMITED = 'Rate limited per client address (`SHARE_RATE_LIMIT_PER_MINUTE`): 429 `rate_limited` with Retry-After.';

/**
 * The public dashboard's data: GET /share/{hash}, POST /share/{hash}/query and
 * GET /share/{hash}/props. No key, no cookie: the hash is the credential, and only
 * while the site's public dashboard is on. The hash alone names the site — a body's
 * `site_id` is refused — and the answers are POST /query's and GET /props's, through
 * the same query service and answer cache.
 */
export const shareRoutes: FastifyPluginAsyncZod<ShareRouteOptions> = async (app, { lookup, reports, rateLimit, annotations }) => {
  const config = { write: false };
  app.addHook('onRequest', async (request) => limitClient(request, rateLimit));

  const readable = async (request: FastifyRequest, hash: string): Promise<SharedSite> => {
    const shared = await lookup(request, hash);
    assertReportsReadable(shared.plan);
    return shared;
  };

  app.get(
    '/api/v1/share/:hash',
    {
      config,
      schema: {
        summary: 'A shared site',
        description: `What the public dashboard shows about the site. ${NOT_SHARED} ${LIMITED}`,
        tags: ['share'],
        security: [],
        params: ShareParams,
        response: { 200: ShareSiteObject, ...errorResponses(403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { site, domain } = await readable(request, request.params.hash);
      return {
        domain,
        timezone: site.timezone,
        goals: site.goals.map((g) => ({
          display_name: g.displayName,
          ...(g.eventName !== undefined ? { event_name: g.eventName } : {}),
          ...(g.pagePath !== undefined ? { page_path: g.pagePath } : {}),
        })),
      };
    },
  );

  app.post(
    '/api/v1/share/:hash/query',
    {
      config,
      schema: {
        summary: 'Query a shared site',
        description: `POST /query for the site the hash names, with the same answers and 400 codes. ${NOT_SHARED} ${LIMITED}`,
        tags: ['share'],
        security: [],
        params: ShareParams,
        body: ShareQueryBody,
        response: { 200: QueryAnswer, ...errorResponses(400, 403, 404, 413, 422, 429, 503) },
      },
    },
    async (request) => {
      // looseObject keeps unknown keys: a site_id must not pick another site, nor pass silently
      if (Object.hasOwn(request.body, 'site_id')) throw new ApiError('invalid_request', 'A share query names its site by the hash; send no site_id.');
      const { site } = await readable(request, request.params.hash);
      // goals only where POST /query loads them too, so both routes share cached answers
      const asked = request.body.dimensions?.includes('event:goal') === true ? site : { ...site, goals: [] };
      return reports.run(request, asked, parseQueryRequest(request.body));
    },
  );

  app.get(
    '/api/v1/share/:hash/props',
    {
      config,
      schema: {
        summary: 'Custom property keys of a shared site',
        description: `GET /props for the site the hash names. ${NOT_SHARED} ${LIMITED}`,
        tags: ['share'],
        security: [],
        params: ShareParams,
        querystring: SharePropsQuerystring,
        response: { 200: PropsAnswer, ...errorResponses(400, 403, 404, 422, 429, 503) },
      },
    },
    async (request) => {
      const { site } = await readable(request, request.params.hash);
      return reports.props(request, { ...site, goals: [] }, request.query.date_range);
    },
  );

  app.get(
    '/api/v1/share/:hash/annotations',
    {
      config,
      schema: {
        summary: 'Annotations of a shared site',
        description: `GET /sites/{id}/annotations for the site the hash names, read-only and without authors. ${NOT_SHARED} ${LIMITED}`,
        tags: ['share'],
        security: [],
        params: ShareParams,
        querystring: AnnotationListQuery,
        response: { 200: SharedAnnotationList, ...errorResponses(400, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { site } = await readable(request, request.params.hash);
      const answer = await annotations(request, site.siteId, windowOf(request.query));
      return { annotations: answer.annotations.map(toSharedAnnotationObject), next_cursor: answer.nextCursor || null, timezone: answer.timezone };
    },
  );
};
