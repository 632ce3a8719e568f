import type { FastifyInstance } from 'fastify';
import { httpRequestDuration, httpRequests, statusClass } from '@sightline/telemetry';

interface RouteSeries {
  count: { inc(): void };
  duration: { observe(seconds: number): void };
}

/**
 * Request rate, errors (status class) and latency per route. The route label is the
 * route's pattern (`/sites/:site_id`), never the raw URL: ids and query strings would
 * make one series per request. Requests no route matched share `unmatched`.
 *
 * The labelled children are looked up once per (route, method, status) and kept:
 * prom-client would otherwise hash a label object on each of the two observations
 * of every request. The map is bounded by routes × methods × status codes.
 */
export function registerMetrics(app: FastifyInstance): void {
  const series = new Map<string, RouteSeries>();
  const seriesOf = (route: string, method: string, status: number): RouteSeries => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      found = { count: httpRequests.labels(route, method, statusClass(status)), duration: httpRequestDuration.labels(route, method) };
      series.set(key, found);
    }
    return found;
  };
  // callback style: no promise per request (every collected event passes here)
  app.addHook('onResponse', (request, reply, done) => {
    const { count, duration } = seriesOf(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode);
    count.inc();
    duration.observe(reply.elapsedTime / 1000);
    done();
  });
}
