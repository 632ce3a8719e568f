import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { actorOf, auditOf, callOptions } from '../edge/request-context.js';
import {
  ANNOTATION_EXPORT_COLUMNS,
  AnnotationExportQuery,
  AnnotationList,
  AnnotationListQuery,
  AnnotationObject,
  annotationsCsv,
  CreateAnnotationBody,
  toAnnotationObject,
  UpdateAnnotationBody,
  windowOf,
} from '../schemas/annotation-schemas.js';
import { errorResponses } from '../schemas/error-responses.js';
import { SiteParams, siteIdOf } from '../schemas/sites-schemas.js';

export interface AnnotationRouteOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  deadlineMs: number;
}

const security = [{ apiKey: [] }];
const AnnotationParams = SiteParams.extend({ annotation_id: z.coerce.number().int().positive() });
const ROLES = 'Any role reads; the owner and admins write (a member: 403 `not_site_owner`). Audited as `annotation.create|update|delete`.';

/**
 * Annotations: dated notes on the site's time axis. The sites service keeps them with
 * the author's account; identity alone keeps addresses, so the gateway names authors.
 * The dashboard's session may write here too (its role on the site decides).
 */
export const annotationRoutes: FastifyPluginAsyncZod<AnnotationRouteOptions> = async (app, { sites, identity, deadlineMs }) => {
  const read = { write: false, auth: { permission: 'stats:read' as const, session: true } };
  const write = { write: true, auth: { permission: 'sites:write' as const, session: 'write' as const } };

  /**
   * Authors' addresses by account id. Identity out of reach names them by key id
   * instead: a committed write must not answer an error (a retry would write twice).
   */
  async function authors(request: FastifyRequest, notes: sitesV1.Annotation[]): Promise<Map<number, string>> {
    const ids = [...new Set(notes.map((n) => n.authorAccountId))];
    if (ids.length === 0) return new Map();
    try {
      const described = await callUnary(
        identity,
        identity.describeAccounts,
        'Identity/DescribeAccounts',
        { accountIds: ids },
        { requestId: request.id, deadlineMs },
      );
      return new Map(described.accounts.map((a) => [a.accountId, a.email]));
    } catch (error) {
      request.log.warn({ err: error }, 'annotation authors named by key id: identity did not describe the accounts');
      return new Map();
    }
  }

  app.get(
    '/api/v1/sites/:id/annotations',
    {
      config: read,
      schema: {
        summary: 'List the site’s annotations in a window',
        description: `Notes whose site-local day is within \`from\`..\`to\`, in time order, a page at a time. ${ROLES}`,
        tags: ['annotations'],
        security,
        params: SiteParams,
        querystring: AnnotationListQuery,
        response: { 200: AnnotationList, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.listAnnotations,
        'Sites/ListAnnotations',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id), window: windowOf(request.query) },
        callOptions(request, deadlineMs),
      );
      const emails = await authors(request, answer.annotations);
      return { annotations: answer.annotations.map((a) => toAnnotationObject(a, emails)), next_cursor: answer.nextCursor || null, timezone: answer.timezone };
    },
  );

  app.get(
    '/api/v1/sites/:id/annotations/export',
    {
      config: read,
      schema: {
        summary: 'Export the site’s annotations',
        description: [
          `Every note of the window (all of them without \`from\`/\`to\`) as one file, the companion of \`GET /sites/{id}/export\` (events): \`ndjson\` gives one Annotation object per line, as the list answers them; \`csv\` the same columns (${ANNOTATION_EXPORT_COLUMNS.map((c) => `\`${c}\``).join(', ')}) under a header line, RFC 4180 quoting. \`Content-Disposition\` names the file. In time order, like the list. ${ROLES}`,
          'Texts are exported as written: open a CSV in a spreadsheet as text, not as formulas.',
        ].join('\n\n'),
        tags: ['annotations', 'export'],
        security,
        params: SiteParams,
        querystring: AnnotationExportQuery,
        response: { 200: z.string().describe('The file (see the description).'), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const siteId = siteIdOf(request.params.id);
      const { format, from, to } = request.query;
      const all: sitesV1.Annotation[] = [];
      // at most 1,000 notes per site: two pages of the largest size
      for (let cursor = ''; ;) {
        const page = await callUnary(
          sites,
          sites.listAnnotations,
          'Sites/ListAnnotations',
          { actor: actorOf(request), siteId, window: windowOf({ from, to, limit: 500, cursor }) },
          callOptions(request, deadlineMs),
        );
        all.push(...page.annotations);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      const emails = await authors(request, all);
      const objects = all.map((a) => toAnnotationObject(a, emails));
      const window = from || to ? `-${from ?? 'start'}-to-${to ?? 'end'}` : '';
      const name = `sightline-site-${siteId}-annotations${window}`.replace(/[^\w.-]/g, '-');
      reply.header('content-disposition', `attachment; filename="${name}.${format}"`).header('cache-control', 'no-store');
      if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(annotationsCsv(objects));
      return reply.type('application/x-ndjson; charset=utf-8').send(objects.map((o) => `${JSON.stringify(o)}\n`).join(''));
    },
  );

  app.post(
    '/api/v1/sites/:id/annotations',
    {
      config: write,
      schema: {
        summary: 'Create an annotation',
        description: `A day note (\`date\`) or a timed note (\`datetime\`), with \`text\`. At most 1000 per site (400 \`invalid_request\`). ${ROLES}`,
        tags: ['annotations'],
        security,
        params: SiteParams,
        body: CreateAnnotationBody,
        response: { 201: AnnotationObject, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { date, datetime, text } = request.body;
      const note = await callUnary(
        sites,
        sites.createAnnotation,
        'Sites/CreateAnnotation',
        { actor: actorOf(request), audit: auditOf(request), siteId: siteIdOf(request.params.id), date, datetime, text },
        callOptions(request, deadlineMs),
      );
      return reply.code(201).send(toAnnotationObject(note, await authors(request, [note])));
    },
  );

  app.patch(
    '/api/v1/sites/:id/annotations/:annotation_id',
    {
      config: write,
      schema: {
        summary: 'Change an annotation',
        description: `Any of \`text\`, \`date\`, \`datetime\` (at most one of the last two); the author stays. 404 \`unknown_annotation\` for a note this site does not have. ${ROLES}`,
        tags: ['annotations'],
        security,
        params: AnnotationParams,
        body: UpdateAnnotationBody,
        response: { 200: AnnotationObject, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { date, datetime, text } = request.body;
      const note = await callUnary(
        sites,
        sites.updateAnnotation,
        'Sites/UpdateAnnotation',
        {
          actor: actorOf(request),
          audit: auditOf(request),
          siteId: siteIdOf(request.params.id),
          annotationId: request.params.annotation_id,
          date,
          datetime,
          text,
        },
        callOptions(request, deadlineMs),
      );
      return toAnnotationObject(note, await authors(request, [note]));
    },
  );

  app.delete(
    '/api/v1/sites/:id/annotations/:annotation_id',
    {
      config: write,
      schema: {
        summary: 'Delete an annotation',
        description: `404 \`unknown_annotation\` for a note this site does not have. ${ROLES}`,
        tags: ['annotations'],
        security,
        params: AnnotationParams,
        response: { 204: z.null().describe('Deleted.'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await callUnary(
        sites,
        sites.deleteAnnotation,
        'Sites/DeleteAnnotation',
        { actor: actorOf(request), audit: auditOf(request), siteId: siteIdOf(request.params.id), annotationId: request.params.annotation_id },
        callOptions(request, deadlineMs),
      );
      return reply.code(204).send(null);
    },
  );
};
