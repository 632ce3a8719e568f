import type { FastifyInstance } from 'fastify';
import { httpRequestDuration, httpRequests, statusClass } from '@sightline/telemetry';

/**
 * Request rate, errors (status class) and latency per route. The route label is the
 * route's pattern (`/sites/:site_id`), never the raw URL: ids and query strings would
 * make one series per request. Requests no route matched share `unmatched`.
 */
export function registerMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    httpRequests.inc({ route, method, status_class: statusClass(reply.statusCode) });
    httpRequestDuration.observe({ route, method }, reply.elapsedTime / 1000);
  });
}
