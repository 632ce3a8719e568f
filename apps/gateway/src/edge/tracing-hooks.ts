import { SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { tracingActive } from '@sightline/telemetry';

const tracer = trace.getTracer('@sightline/gateway');
const spans = new WeakMap<object, Span>();

/**
 * One SERVER span per HTTP request, made the active context for the rest of the
 * request so gRPC calls below it become its children. A no-op when tracing is off.
 */
export function registerTracing(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    // tracing off: no span name, attributes or no-op span built per request (every collected event passes here)
    if (!tracingActive()) return done();
    const span = tracer.startSpan(`HTTP ${request.method}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'url.path': request.url.split('?')[0], 'sightline.request_id': request.id },
    });
    // not sampled, the span still becomes the active context: the calls and publishes under
    // it carry its trace id with the sampled flag off, so they are not sampled either (no
    // `publish`/`consume` span of an unsampled request turns up as a root of its own)
    if (span.isRecording()) spans.set(request, span);
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.updateName(`HTTP ${request.method} ${request.routeOptions.url ?? 'unmatched'}`);
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
