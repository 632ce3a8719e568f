import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callUnary } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { AuditEntryObject, AuditQuery, SiteParams, siteIdOf, toAuditEntry } from '../schemas/sites-schemas.js';

export interface AuditRouteOptions {
  sites: sitesV1.SitesServiceClient;
  deadlineMs: number;
}

/** The site's audit trail, newest first (owner and admins). */
export const auditRoutes: FastifyPluginAsyncZod<AuditRouteOptions> = async (app, { sites, deadlineMs }) => {
  app.get(
    '/api/v1/sites/:id/audit',
    {
      config: { write: false, auth: { permission: 'stats:read' } },
      schema: {
        summary: 'Page through the site’s audit trail',
        description:
          'Every write with the acting key, IP, User-Agent and request id, newest first. Owner and admins only. Continue with `cursor` = `next_cursor` until it is null.',
        tags: ['audit'],
        security: [{ apiKey: [] }],
        params: SiteParams,
        querystring: AuditQuery,
        response: { 200: z.object({ entries: z.array(AuditEntryObject), next_cursor: z.string().nullable() }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.listAudit,
        'Sites/ListAudit',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id), limit: request.query.limit ?? 50, cursor: request.query.cursor ?? '' },
        callOptions(request, deadlineMs),
      );
      return { entries: answer.entries.map(toAuditEntry), next_cursor: answer.nextCursor || null };
    },
  );
};
