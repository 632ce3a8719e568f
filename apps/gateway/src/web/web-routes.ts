import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, isApiError } from '@sightline/errors';
import { limitClient, type ClientRateLimit } from '../share/client-rate-limit.js';
import type { ShareLookup } from '../share/share-sites.js';
import { pickEncoding } from './accept-encoding.js';
import type { DashboardDist } from './dashboard-dist.js';
import { NOT_BUILT_PAGE, NOT_FOUND_PAGE, renderShell, type BootData, type Theme } from './html-shell.js';
import { setPageHeaders } from './page-headers.js';

export interface WebRouteOptions {
  /** undefined: not built (DASHBOARD_DIR holds no manifest); the pages say so with 503 */
  dist: DashboardDist | undefined;
  lookup: ShareLookup;
  rateLimit: ClientRateLimit;
}

const SITE_ID = /^[1-9][0-9]{0,15}$/;
/** the router's own bound (maxParamLength): a longer or malformed value is the 404 page, never a 400 */
const PageParam = z.string().max(200);
const THEMES = new Set<Theme>(['light', 'dark', 'system']);
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The dashboard's pages and files: `/`, `/sites/{id}` and `/share/{hash}` answer the one
 * HTML shell with their boot data; `/assets/*` the hashed build files. Access to a site's
 * data is checked by the data routes, not here — except a share page, which is the 404
 * page unless its hash names a site whose public dashboard is on.
 */
export const webRoutes: FastifyPluginAsyncZod<WebRouteOptions> = async (app, { dist, lookup, rateLimit }) => {
  const config = { write: false };
  // no querystring schema: a page never answers 400 for a parameter it does not know or cannot use
  const schema = { hide: true };

  const page = (reply: FastifyReply, boot: BootData, title: string) => {
    setPageHeaders(reply, boot.embed);
    if (!dist) return reply.code(503).send(NOT_BUILT_PAGE);
    return reply.send(renderShell(dist.manifest, boot, title));
  };
  const notFound = (reply: FastifyReply) => setPageHeaders(reply, false).code(404).send(NOT_FOUND_PAGE);

  app.get('/', { config, schema }, async (_request, reply) => page(reply, { page: 'home', embed: false, theme: 'system' }, 'Sightline'));

  app.get('/sites/:id', { config, schema: { ...schema, params: z.object({ id: PageParam }) } }, async (request, reply) => {
    if (!SITE_ID.test(request.params.id)) return notFound(reply);
    return page(reply, { page: 'site', site_id: Number(request.params.id), embed: false, theme: 'system' }, 'Sightline');
  });

  app.get('/share/:hash', { config, schema: { ...schema, params: z.object({ hash: PageParam }) } }, async (request, reply) => {
    limitClient(request, rateLimit);
    let domain: string;
    try {
      domain = (await lookup(request, request.params.hash)).domain;
    } catch (error) {
      if (isApiError(error) && error.code === 'unknown_site') return notFound(reply);
      throw error;
    }
    const query = request.query as Record<string, unknown>;
    const embed = query.embed === 'true';
    const theme = THEMES.has(query.theme as Theme) ? (query.theme as Theme) : 'system';
    return page(reply, { page: 'share', share_hash: request.params.hash, embed, theme }, `${domain} · Sightline`);
  });

  // browsers ask each origin for /favicon.ico; there is no icon, and a 404 would be an error in every page's console
  app.get('/favicon.ico', { config, schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').code(204).send(),
  );

  app.get('/assets/*', { config, schema: { hide: true } }, async (request: FastifyRequest, reply) => {
    const name = (request.params as { '*': string })['*'];
    // only what the manifest lists is served: `..`, encoded or not, names nothing in it
    const asset = dist?.assets.get(`assets/${name}`);
    if (!asset) throw new ApiError('not_found', 'No such dashboard file.');
    const encoding = pickEncoding(request.headers['accept-encoding'], { br: asset.br !== undefined, gzip: asset.gzip !== undefined });
    reply.header('cache-control', IMMUTABLE).header('vary', 'Accept-Encoding').header('x-content-type-options', 'nosniff').type(asset.contentType);
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.identity);
  });
};
