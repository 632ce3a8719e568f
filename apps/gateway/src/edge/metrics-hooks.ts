import type { FastifyInstance } from 'fastify';
import { httpRequestDuration, httpRequests, statusClass, type CounterSeries, type HistogramSeries } from '@sightline/telemetry';

interface RouteSeries {
  count: CounterSeries;
  duration: HistogramSeries;
}

/**
 * Request rate, errors (status class) and latency per route. The route label is the
 * route's pattern (`/sites/:site_id`), never the raw URL: ids and query strings would
 * make one series per request. Requests no route matched share `unmatched`.
 *
 * The series are looked up once per (route, method, status) and kept (resolved
 * metrics: an update is an addition). The map is bounded by routes × methods × status codes.
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
