import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { principalOf } from '../auth/authenticate.js';
import { actorOf, auditOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { widgetSnippet } from '../widgets/widget-snippet.js';
import { WidgetKeyObject } from '../widgets/widget-schemas.js';
import { WIDGET_TYPES, WIDGET_TYPE_LIST, isWidgetType } from '../widgets/widget-types.js';
import { CreateSiteBody, SiteObject, SiteParams, SiteWithRoleObject, UpdateSiteBody, siteIdOf, toSiteObject } from '../schemas/sites-schemas.js';

export interface SiteRouteOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  deadlineMs: number;
  /** PUBLIC_URL: the widgets' script URLs, like the tracker's */
  publicUrl: string;
  /** drops this replica's widget lookups and answers of a site whose key was rotated (the others hear `site.updated`) */
  forgetWidgetSite: (siteId: number) => void;
  /** drops this replica's report context of a site changed or deleted here, at once (the others hear `site.updated`, `site.deleted`) */
  forgetReportSite?: (siteId: number) => void;
}

const security = [{ apiKey: [] }];
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;
const SnippetObject = z
  .object({
    site_id: z.number().int(),
    type: z.enum(WIDGET_TYPES).optional().describe('The widget asked (absent for the tracker).'),
    script_url: z.string(),
    key: z
      .string()
      .optional()
      .describe(
        'Widgets only: the site’s widget key (`wk_…`), also in the snippet’s `data-key`. It reads only the widget data of this site; the same until rotated.',
      ),
    snippet: z.string(),
  })
  .meta({ id: 'Snippet' });

/** Site lifecycle: create (idempotent on request), list, read, update, delete. */
export const siteRoutes: FastifyPluginAsyncZod<SiteRouteOptions> = async (
  app,
  { sites, identity, deadlineMs, publicUrl, forgetWidgetSite, forgetReportSite },
) => {
  const base = publicUrl.replace(/\/+$/, '');
  app.post(
    '/api/v1/sites',
    {
      config: { write: true, auth: { permission: 'sites:write' } },
      schema: {
        summary: 'Create a site',
        description:
          'Answers the site with its install snippet. With an `Idempotency-Key` header, repeating the same request within 24 hours replays the stored answer; a different body with the same key, or a repeat while the first is still running, answers 409 idempotency_conflict. A duplicate URL answers 409 site_exists without returning the existing site.',
        tags: ['sites'],
        security,
        headers: z.object({
          'idempotency-key': z.string().optional().describe('1 to 255 printable ASCII characters; an empty or longer key answers 400 invalid_request.'),
        }),
        body: CreateSiteBody,
        response: { 201: SiteObject, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      // a header sent empty is a malformed key, not a request without one
      const header = request.headers['idempotency-key'];
      if (header !== undefined && !IDEMPOTENCY_KEY.test(header)) {
        throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
      }
      const idempotencyKey = header ?? '';
      const body = request.body;
      const created = await callUnary(
        sites,
        sites.createSite,
        'Sites/CreateSite',
        { actor: actorOf(request), audit: auditOf(request), url: body.url, timezone: body.timezone, hobby: body.hobby, idempotencyKey },
        callOptions(request, deadlineMs),
      );
      // every non-hobby create asks (StartTrial is idempotent), so a failed call is healed by the next one
      if (created.site && !created.site.hobby && !created.replayed)
        await startTrial(request.log, identity, principalOf(request).accountId, request.id, deadlineMs);
      if (created.replayed) reply.header('idempotent-replayed', 'true');
      // a replay answers the stored status (a create only ever stores 201)
      return reply.code((created.status || 201) as 201).send(toSiteObject(created.site));
    },
  );

  app.get(
    '/api/v1/sites',
    {
      config: { write: false, auth: { session: true } },
      schema: {
        summary: 'List the sites this key reaches',
        description: 'Each with the caller’s role on it.',
        tags: ['sites'],
        security,
        response: { 200: z.object({ sites: z.array(SiteWithRoleObject) }), ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(sites, sites.listSites, 'Sites/ListSites', { actor: actorOf(request) }, callOptions(request, deadlineMs));
      return { sites: answer.sites.map((entry) => ({ ...toSiteObject(entry.site), role: entry.role as 'owner' | 'admin' | 'member' })) };
    },
  );

  app.get(
    '/api/v1/sites/:id',
    {
      config: { write: false, auth: { permission: 'stats:read', session: true } },
      schema: {
        summary: 'Read a site',
        tags: ['sites'],
        security,
        params: SiteParams,
        response: { 200: SiteWithRoleObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.getSite,
        'Sites/GetSite',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id) },
        callOptions(request, deadlineMs),
      );
      return { ...toSiteObject(answer.site), role: answer.role as 'owner' | 'admin' | 'member' };
    },
  );

  app.get(
    '/api/v1/sites/:id/snippet',
    {
      config: { write: false, auth: { permission: 'stats:read' } },
      schema: {
        summary: 'The install snippet of the site',
        description:
          'Install the `snippet` as returned. Members may call it. `type` (globe, live-users, map, countries) asks for an embeddable widget instead; any other value answers 400. ' +
          'A widget’s snippet is a target element and an async `<script>` (`script_url`, the same for every site) carrying the site’s widget `key` in `data-key`; options are further data attributes (README, "Widgets").',
        tags: ['sites'],
        security,
        params: SiteParams,
        querystring: z.object({ type: z.string().max(40).optional() }),
        response: { 200: SnippetObject, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const type = request.query.type;
      if (type !== undefined && !isWidgetType(type))
        throw new ApiError('invalid_request', `type must be one of ${WIDGET_TYPE_LIST} (or absent for the tracker).`);
      const siteId = siteIdOf(request.params.id);
      if (type !== undefined) {
        const { key } = await callUnary(sites, sites.getWidgetKey, 'Sites/GetWidgetKey', { actor: actorOf(request), siteId }, callOptions(request, deadlineMs));
        return { site_id: siteId, type, ...widgetSnippet(base, type, siteId, key) };
      }
      const answer = await callUnary(sites, sites.getSite, 'Sites/GetSite', { actor: actorOf(request), siteId }, callOptions(request, deadlineMs));
      return { site_id: answer.site!.siteId, script_url: answer.site!.scriptUrl, snippet: answer.site!.snippet };
    },
  );

  app.post(
    '/api/v1/sites/:id/widget-key/rotate',
    {
      config: { write: true, auth: { permission: 'sites:write' } },
      schema: {
        summary: 'Rotate the site’s widget key',
        description:
          'Owner or admin. A new widget key for every widget of the site; the old one answers 404 unknown_site from now on (every gateway forgets it within one bus delivery). Pages embedding a widget need the new snippet. Audited as `site.widget_key.rotate` (the key is never recorded).',
        tags: ['sites'],
        security,
        params: SiteParams,
        response: { 200: WidgetKeyObject, ...errorResponses(401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const rotated = await callUnary(
        sites,
        sites.rotateWidgetKey,
        'Sites/RotateWidgetKey',
        { actor: actorOf(request), audit: auditOf(request), siteId: siteIdOf(request.params.id) },
        callOptions(request, deadlineMs),
      );
      forgetWidgetSite(rotated.siteId);
      return { site_id: rotated.siteId, key: rotated.key };
    },
  );

  app.patch(
    '/api/v1/sites/:id',
    {
      config: { write: true, auth: { permission: 'sites:write' } },
      schema: {
        summary: 'Update a site',
        description: 'Omitted fields are unchanged. A new URL follows the creation rules (refused zones, the hobby host rule, site_exists).',
        tags: ['sites'],
        security,
        params: SiteParams,
        body: UpdateSiteBody,
        response: { 200: SiteObject, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const body = request.body;
      const siteId = siteIdOf(request.params.id);
      const site = await callUnary(
        sites,
        sites.updateSite,
        'Sites/UpdateSite',
        { actor: actorOf(request), audit: auditOf(request), siteId, url: body.url, timezone: body.timezone, weekStart: body.week_start },
        callOptions(request, deadlineMs),
      );
      // the next report here reads the new timezone and week start, before site.updated arrives
      forgetReportSite?.(siteId);
      return toSiteObject(site);
    },
  );

  app.delete(
    '/api/v1/sites/:id',
    {
      config: { write: true, auth: { permission: 'sites:write' } },
      schema: {
        summary: 'Delete a site',
        description:
          'Owner only; irreversible. Goals, funnels, members and settings go at once; collected events are removed asynchronously. 503 deletion_unavailable means nothing was deleted: retry later.',
        tags: ['sites'],
        security,
        params: SiteParams,
        response: { 204: z.null().describe('Deleted.'), ...errorResponses(401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const siteId = siteIdOf(request.params.id);
      await callUnary(
        sites,
        sites.deleteSite,
        'Sites/DeleteSite',
        { actor: actorOf(request), audit: auditOf(request), siteId },
        callOptions(request, deadlineMs),
      );
      // its widget key and reports stop here at once; other replicas hear site.deleted
      forgetWidgetSite(siteId);
      forgetReportSite?.(siteId);
      return reply.code(204).send(null);
    },
  );
};

/**
 * The first non-hobby site starts the account's trial. StartTrial is idempotent; if
 * it fails the site still stands and the account stays on its current plan (logged
 * for the operator), rather than failing a create that already committed.
 */
async function startTrial(
  log: { error: (o: object, m: string) => void },
  identity: identityV1.IdentityServiceClient,
  accountId: number,
  requestId: string,
  deadlineMs: number,
) {
  try {
    await callUnary(identity, identity.startTrial, 'Identity/StartTrial', { accountId }, { requestId, deadlineMs });
  } catch (error) {
    log.error({ err: error, account_id: accountId }, 'could not start the trial for a first non-hobby site');
  }
}
