import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Config } from '@sightline/config';
import { buildGateway, closeServices, connectServices, type ServiceAddresses } from '@sightline/gateway';
import { SERVICE_NAMES, systemClock, type Clock, type ServiceName, type StoreNeeds } from '@sightline/runtime';
import type { CalledService } from '@sightline/service-clients';
import type { Logger } from '@sightline/telemetry';
import type { Bus } from '@sightline/bus';
import type { EventStore } from '@sightline/event-store';
import type { Target } from './parse-target.js';
import { SERVICE_MODULES } from './service-modules.js';
import { shutdownPhases } from './shutdown-phases.js';
import { assertExternalStores, closeStores, openStores, type Stores } from './stores.js';
import { runService, type RunningService } from './run-service.js';
import { VERSION } from './version.js';
import { noPortReservation, reserveConcretePort } from './resolve-port.js';
import { withSecretKey } from './secret-key.js';
import { channelTuningOf, configuredAddresses } from './service-addresses.js';
import { startOrder } from './start-order.js';

export interface RunningSightline {
  target: Target;
  /** http://localhost:<port> when a gateway runs */
  url?: string;
  /** host:port of the gRPC server when one service runs alone */
  grpcAddress?: string;
  services: RunningService[];
  gateway?: FastifyInstance;
  /** the bus this process uses (tests observe published messages on it) */
  bus?: Bus;
  /** the events store this process uses (tests seed events through it) */
  events?: EventStore;
  /** Graceful stop: gateway first (no new work), then services drain, then stores close. */
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  log: Logger;
  target: Target;
  /** the current time; tests pass a movable one */
  clock?: Clock;
  /** test hook: extra gateway routes */
  extraRoutes?: Parameters<typeof buildGateway>[0]['extraRoutes'];
}

const GATEWAY_NEEDS: StoreNeeds = { bus: true };

/** apps/dashboard/dist beside this app, from the sources (tsx) and the image's compiled tree alike */
const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));
/** apps/widgets/dist beside this app, likewise */
const DEFAULT_WIDGETS_DIR = fileURLToPath(new URL('../../widgets/dist', import.meta.url));
/** a window counts as closed (cached for QUERY_CACHE_CLOSED_TTL_MS) once its last day ended an hour ago: 30-minute sessions across midnight, ingest lag */
const CLOSED_AFTER_MS = 3_600_000;

function unionNeeds(list: StoreNeeds[]): StoreNeeds {
  return list.reduce<StoreNeeds>((all, n) => ({ db: all.db || n.db, events: all.events || n.events, bus: all.bus || n.bus, mail: all.mail || n.mail }), {});
}

function loopbackAddresses(services: readonly RunningService[]): Partial<Record<CalledService, string>> {
  return Object.fromEntries(services.map((s) => [s.name, s.server.address]));
}

/**
 * Starts a target. `all`: every service on loopback gRPC plus the gateway, sharing
 * one set of stores (embedded by default). `gateway`: the edge alone, dialling the
 * configured service addresses. `<service>`: one service alone on GRPC_HOST:GRPC_PORT.
 */
export async function startSightline({ config: given, log, target, extraRoutes, clock = systemClock }: StartOptions): Promise<RunningSightline> {
  const withGateway = target === 'all' || target === 'gateway';
  const serviceNames: ServiceName[] = startOrder(target === 'all' ? [...SERVICE_NAMES] : target === 'gateway' ? [] : [target], SERVICE_MODULES);
  const needs = unionNeeds([...serviceNames.map((name) => SERVICE_MODULES[name].needs), ...(withGateway ? [GATEWAY_NEEDS] : [])]);
  if (target !== 'all') assertExternalStores(given, needs, target);
  const reservation = withGateway ? await reserveConcretePort(given) : noPortReservation(given);
  // identity keys one-time codes with it, sites the widget keys
  const config = serviceNames.includes('identity') || serviceNames.includes('sites') ? await withSecretKey(reservation.config, target) : reservation.config;
  const addresses = target === 'gateway' ? configuredAddresses(config, SERVICE_NAMES, '--target=gateway needs the address of every service') : undefined;
  // a service alone dials the services it calls at their configured addresses; in one process, at their loopback ones
  const called = target === 'all' || target === 'gateway' ? [] : [...(SERVICE_MODULES[target].calls ?? [])];
  const calledAddresses: Partial<Record<CalledService, string>> =
    called.length > 0 ? configuredAddresses(config, called, `--target=${target} calls ${called.join(', ')}`) : {};

  const stores: Stores = await openStores(config, needs);
  const services: RunningService[] = [];
  let gateway: FastifyInstance | undefined;
  let clients: ReturnType<typeof connectServices> = [];

  const stop = async (): Promise<void> => {
    const graceMs = config.SHUTDOWN_GRACE_MS;
    // past the grace period a phase still running is named in a warning (a hung stop says where)
    const phases = shutdownPhases(log, graceMs + 1_000);
    try {
      await reservation.release();
      if (gateway) await phases.run('gateway', () => gateway!.close());
      closeServices(clients);
      await Promise.all(services.map((service) => service.stop(graceMs, phases)));
      await closeStores(stores, phases);
    } finally {
      log.debug({ phases: phases.done().map((f) => `${f.phase} ${f.ms} ms`) }, 'stopped');
    }
  };

  try {
    for (const name of serviceNames) {
      const alone = target !== 'all';
      services.push(
        await runService(SERVICE_MODULES[name], stores, {
          config,
          log,
          clock,
          host: alone ? config.GRPC_HOST : '127.0.0.1',
          port: alone ? config.GRPC_PORT : 0,
          addresses: alone ? calledAddresses : loopbackAddresses(services),
        }),
      );
    }
    if (!withGateway) {
      return { target, services, bus: stores.bus, events: stores.events, grpcAddress: services[0]?.server.address, stop };
    }
    clients = connectServices(addresses ?? (Object.fromEntries(services.map((s) => [s.name, s.server.address])) as ServiceAddresses), channelTuningOf(config));
    gateway = await buildGateway({
      log: log.bindings().service ? log : log.child({ service: 'gateway' }),
      publicUrl: config.publicUrl,
      version: VERSION,
      writesEnabled: config.WRITES_ENABLED,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      importMaxBytes: config.IMPORT_MAX_BYTES,
      trustedProxies: config.TRUSTED_PROXIES,
      services: clients,
      ownStores: stores.bus ? [{ role: 'bus', kind: stores.bus.kind, check: () => stores.bus!.ping() }] : [],
      grpcDeadlineMs: config.GRPC_DEADLINE_MS,
      bus: stores.bus!,
      eventShards: config.EVENT_SHARDS,
      keyCacheTtlMs: config.KEY_CACHE_TTL_MS,
      reportCache: { ttlMs: config.REPORT_CACHE_TTL_MS, staleMs: config.GATEWAY_STALE_MS },
      budgets: { write: config.BUDGET_WRITE_PER_HOUR, account: config.BUDGET_ACCOUNT_PER_HOUR, key: config.BUDGET_KEY_PER_HOUR },
      usageSyncIntervalMs: config.USAGE_SYNC_INTERVAL_MS,
      terms: { externalUrl: config.TERMS_URL, url: config.termsUrl, version: config.TERMS_VERSION },
      queryCache: {
        maxBytes: config.QUERY_CACHE_MAX_BYTES,
        liveTtlMs: config.QUERY_CACHE_LIVE_TTL_MS,
        closedTtlMs: config.QUERY_CACHE_CLOSED_TTL_MS,
        closedAfterMs: CLOSED_AFTER_MS,
      },
      shareRateLimitPerMinute: config.SHARE_RATE_LIMIT_PER_MINUTE,
      exportRateLimitPerHour: config.EXPORT_RATE_LIMIT_PER_HOUR,
      widgets: {
        cacheTtlMs: config.WIDGET_CACHE_TTL_MS,
        rateLimitPerMinute: config.WIDGET_RATE_LIMIT_PER_MINUTE,
        keyRateLimitPerMinute: config.WIDGET_KEY_RATE_LIMIT_PER_MINUTE,
      },
      dashboardDir: config.DASHBOARD_DIR ?? DEFAULT_DASHBOARD_DIR,
      widgetsDir: config.WIDGETS_DIR ?? DEFAULT_WIDGETS_DIR,
      extraRoutes,
    });
    // buildGateway returns it ready (plugins loaded): the reserved port is free only for the listen call
    await reservation.release();
    await gateway.listen({ host: config.HOST, port: config.PORT });
    const address = gateway.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    return { target, services, gateway, bus: stores.bus, events: stores.events, url: `http://localhost:${port}`, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
