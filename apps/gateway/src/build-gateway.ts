import type { FastifyInstance } from 'fastify';
import { registerAuthentication } from './auth/authenticate.js';
import { UsageMeter } from './budgets/usage-meter.js';
import { openCaches } from './caches/gateway-caches.js';
import { createEdge, registerEdgeTail } from './edge/edge-hooks.js';
import { OPENAPI_PATH } from './edge/openapi.js';
import type { GatewayOptions } from './gateway-options.js';
import { registerRoutes } from './routes/register-routes.js';
import { clientOf } from './services/service-clients.js';

/**
 * Builds the HTTP edge. Order matters: the hooks that every route must get
 * (request id, tracing, write switch, route index for 405, authentication) are
 * registered before any route, and the OpenAPI plugin before the routes it describes.
 */
export async function buildGateway(options: GatewayOptions): Promise<FastifyInstance> {
  const { app, routes } = createEdge(options);
  const identity = clientOf(options.services, 'identity');
  const caches = await openCaches(app, options, clientOf(options.services, 'sites'));
  const meter = new UsageMeter(identity, options.budgets, options.log);
  registerAuthentication(app, { identity, cache: caches.keyCache, sessionCache: caches.sessionCache, meter, deadlineMs: options.grpcDeadlineMs });
  meter.start(options.usageSyncIntervalMs);
  app.addHook('onClose', async () => meter.stop());
  registerEdgeTail(app, routes, `${options.publicUrl}${OPENAPI_PATH}`);
  await registerRoutes(app, options, caches);
  await app.ready();
  return app;
}
