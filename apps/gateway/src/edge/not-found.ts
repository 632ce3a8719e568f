import type { FastifyInstance } from 'fastify';
import { ApiError } from '@sightline/errors';
import { sendError } from './render-error.js';
import type { RouteIndex } from './route-index.js';

/** 404 `not_found` for unknown paths, 405 `method_not_allowed` (+ Allow) for known paths. */
export function registerNotFound(app: FastifyInstance, routes: RouteIndex, docsUrl: string): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow = routes.allowedMethods(path);
    if (allow.length > 0) {
      const error = new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}.`, { allow });
      return sendError(request, reply, error, {
        hint: `${path} accepts: ${allow.join(', ')}. See the OpenAPI description for each operation.`,
        docs: docsUrl,
      });
    }
    const error = new ApiError('not_found', `No route matches ${request.method} ${path}.`);
    return sendError(request, reply, error, {
      hint: 'Check the path and the /api/v1 prefix; the OpenAPI description lists every route.',
      docs: docsUrl,
    });
  });
}
