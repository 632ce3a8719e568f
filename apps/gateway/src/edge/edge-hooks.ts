import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GatewayOptions } from '../gateway-options.js';
import { AccessLogThrottle } from './access-log-throttle.js';
import { clientErrorHandler, renderFrameworkError } from './framework-errors.js';
import { registerJsonBodyParser } from './json-body.js';
import { registerMetrics } from './metrics-hooks.js';
import { registerNotFound } from './not-found.js';
import { registerErrorRenderer } from './render-error.js';
import { newRequestId, registerRequestId } from './request-id.js';
import { requestLoggerFactory } from './request-logger.js';
import { RouteIndex } from './route-index.js';
import { registerTracing } from './tracing-hooks.js';
import { registerUntrustedProxyWarning } from './untrusted-proxy-warning.js';
import { registerWriteSwitch } from './write-switch.js';

/** Routes whose successful requests are logged at debug, not info (high volume, no news). */
const QUIET_ROUTES = new Set(['/api/event', '/healthz', '/readyz', '/readyz/gateway']);

interface AccessLogLine {
  method: string;
  url: string;
  status: number;
  ms: number;
  /** refusals of this route and status logged at debug since the previous info line (AccessLogThrottle) */
  suppressed?: number;
}

type EdgeOptions = Pick<GatewayOptions, 'log' | 'bodyLimitBytes' | 'trustedProxies' | 'writesEnabled'>;

/**
 * The fastify instance with the hooks every route must get (request id, tracing,
 * metrics, error rendering, JSON bodies, the route index for 405, the write switch),
 * registered before any route.
 */
export function createEdge(options: EdgeOptions) {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger at run time; the cast only unifies the generic
    loggerInstance: options.log as FastifyBaseLogger,
    // one line per request is written by our onResponse hook, with the fields we choose
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: newRequestId,
    // request.log becomes a pino child only when the request logs something (see RequestLogger)
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustedProxies.length > 0 ? options.trustedProxies : false,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // failures raised before any route or hook still answer the error object
    frameworkErrors: renderFrameworkError,
    clientErrorHandler: clientErrorHandler(options.log),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // tracing first: the request's span is active for every later hook, so their log lines carry its trace_id
  registerTracing(app);
  registerRequestId(app);
  registerMetrics(app);
  if (options.trustedProxies.length === 0) registerUntrustedProxyWarning(app, options.log);
  registerErrorRenderer(app);
  registerJsonBodyParser(app);
  const routes = RouteIndex.attach(app);
  registerWriteSwitch(app, options.writesEnabled);
  return { app, routes };
}

/** 404/405 for unmatched requests, and the one access-log line per request. */
export function registerEdgeTail(app: FastifyInstance, routes: RouteIndex, docsUrl: string): void {
  registerNotFound(app, routes, docsUrl);
  const refusalLogThrottle = new AccessLogThrottle();
  // callback style: one promise less per request (every collected event passes here)
  app.addHook('onResponse', (request, reply, done) => {
    const line: AccessLogLine = { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    const route = request.routeOptions.url ?? '';
    if (!QUIET_ROUTES.has(route)) request.log.info(line, 'request');
    // tracker traffic and probes are counted in /metrics; a line each would drown the log at info
    else if (reply.statusCode < 400) request.log.debug(line, 'request');
    else {
      // their refusals too, past a few per window (a deleted site's snippet left on a busy page)
      const admitted = refusalLogThrottle.admit(route, reply.statusCode);
      if (admitted && admitted.suppressed > 0) line.suppressed = admitted.suppressed;
      if (admitted) request.log.info(line, 'request');
      else request.log.debug(line, 'request');
    }
    done();
  });
}

export type GatewayApp = ReturnType<typeof createEdge>['app'];
