import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { checkService, type ServiceClient } from '../services/service-clients.js';

export interface HealthRouteOptions {
  services: readonly ServiceClient[];
  /** stores the gateway itself uses (the bus, for collected events) */
  ownStores: ReadonlyArray<{ role: string; kind: string; check: () => Promise<void> }>;
  deadlineMs: number;
}

const READINESS_DEADLINE_MS = 2_000;

/**
 * /healthz: the process is up (liveness; never touches a dependency, so a slow
 * database can't get healthy pods restarted). /readyz: every service answers its
 * gRPC health check as SERVING and every store it and the gateway use is reachable;
 * 503 with the failing parts otherwise. /readyz/gateway: this gateway's own
 * readiness (its Kubernetes readiness probe) — its bus answers, without which every
 * collected event is refused with 503; the services are not asked, so one service
 * down does not take every gateway (and collection) out of the load balancer.
 */
export const healthRoutes: FastifyPluginAsyncZod<HealthRouteOptions> = async (app, options) => {
  app.get('/healthz', { config: { write: false }, schema: { hide: true } }, async () => ({ status: 'ok' }));

  const checkOwnStores = (deadlineMs: number) =>
    Promise.all(
      options.ownStores.map(async (store) => {
        try {
          await withinDeadline(store.check(), deadlineMs);
          return { role: store.role, kind: store.kind, reachable: true };
        } catch (error) {
          return { role: store.role, kind: store.kind, reachable: false, detail: error instanceof Error ? error.message : String(error) };
        }
      }),
    );

  app.get('/readyz', { config: { write: false }, schema: { hide: true } }, async (request, reply) => {
    const deadlineMs = Math.min(options.deadlineMs, READINESS_DEADLINE_MS);
    const [services, gatewayStores] = await Promise.all([
      Promise.all(options.services.map(async (client) => [client.name, await checkService(client, request.id, deadlineMs)] as const)),
      checkOwnStores(deadlineMs),
    ]);
    const ready = services.every(([, readiness]) => readiness.serving) && gatewayStores.every((s) => s.reachable);
    reply.header('cache-control', 'no-store');
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not_ready',
      gateway: { stores: gatewayStores },
      services: Object.fromEntries(services),
    });
  });

  app.get('/readyz/gateway', { config: { write: false }, schema: { hide: true } }, async (_request, reply) => {
    const gatewayStores = await checkOwnStores(Math.min(options.deadlineMs, READINESS_DEADLINE_MS));
    const ready = gatewayStores.every((s) => s.reachable);
    reply.header('cache-control', 'no-store');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', gateway: { stores: gatewayStores } });
  });
};

/** A store check that has not answered within the deadline counts as unreachable (a probe must get an answer in time). */
function withinDeadline(check: Promise<void>, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
  });
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}
