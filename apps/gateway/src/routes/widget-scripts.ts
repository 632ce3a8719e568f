import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { pickEncoding } from '../web/accept-encoding.js';
import { isWidgetType } from '../widgets/widget-types.js';
import type { WidgetsDist } from '../widgets/widgets-dist.js';

export interface WidgetScriptRouteOptions {
  /** undefined: not built (every bundle answers 404) */
  dist: WidgetsDist | undefined;
}

/**
 * GET /widgets/v1/{type}.js: the widget bundles, from memory. The URL is stable (owners
 * paste it once), so it is cached briefly and revalidated by a strong ETag rather than made
 * immutable; any page may load it (CORS, CORP cross-origin), never sniffed.
 */
export const widgetScriptRoutes: FastifyPluginAsyncZod<WidgetScriptRouteOptions> = async (app, { dist }) => {
  app.get('/widgets/v1/:file', { config: { write: false }, schema: { hide: true, params: z.object({ file: z.string().max(80) }) } }, async (request, reply) => {
    const type = request.params.file.endsWith('.js') ? request.params.file.slice(0, -3) : '';
    if (!isWidgetType(type)) throw new ApiError('not_found', 'No such widget: /widgets/v1/{globe,live-users,map,countries}.js.');
    const bundle = dist?.get(type);
    if (!bundle) throw new ApiError('not_found', 'The widgets are not built on this server.');
    reply
      .header('cache-control', 'public, max-age=300, stale-while-revalidate=86400')
      .header('etag', bundle.etag)
      .header('vary', 'Accept-Encoding')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff');
    const asked = request.headers['if-none-match'];
    if (asked !== undefined && asked.split(',').some((tag) => tag.trim() === bundle.etag || tag.trim() === '*')) return reply.code(304).send();
    const encoding = pickEncoding(request.headers['accept-encoding'], { br: bundle.br !== undefined, gzip: bundle.gzip !== undefined });
    reply.type('text/javascript; charset=utf-8');
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(encoding === 'br' ? bundle.br : encoding === 'gzip' ? bundle.gzip : bundle.identity);
  });
};
