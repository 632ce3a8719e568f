import type { Db } from '@sightline/db';
import type { EventStore } from '@sightline/event-store';
import type { Bus } from '@sightline/bus';
import type { Mailer } from '@sightline/mailer';
import type { Config } from '@sightline/config';
import type { ServiceRegistration } from '@sightline/grpc-kit';
import type { CalledService, ServiceClients } from '@sightline/service-clients';
import type { Logger } from '@sightline/telemetry';

export const SERVICE_NAMES = ['identity', 'sites', 'settings', 'script-builder', 'query', 'ingest'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export function isServiceName(value: string): value is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(value);
}

/** The stores a service can ask for. The launcher opens exactly those. */
export interface StoreNeeds {
  db?: boolean;
  events?: boolean;
  bus?: boolean;
  mail?: boolean;
}

/** The current time. Injected so tests can move it (trials, expiries, windows). */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** What every service gets, whatever it needs. */
export interface CoreDeps {
  config: Config;
  log: Logger;
  clock: Clock;
}

/**
 * The deps of a service that needs the stores `N` and calls the services `C`: each
 * store it declared is present (typed, not optional), so `start` never re-checks;
 * `clients` holds a typed gRPC client of each service it calls.
 */
export type DepsFor<N extends StoreNeeds, C extends CalledService = never> = CoreDeps &
  (N['db'] extends true ? { db: Db } : unknown) &
  (N['events'] extends true ? { events: EventStore } : unknown) &
  (N['bus'] extends true ? { bus: Bus } : unknown) &
  (N['mail'] extends true ? { mailer: Mailer } : unknown) &
  ([C] extends [never] ? unknown : { clients: Pick<ServiceClients, C> });

/** What a started service hands back: its gRPC services, and how to stop its background work. */
export interface ServiceInstance {
  services: ServiceRegistration[];
  /** stops consumers and timers; stores are closed by the launcher afterwards */
  stop(): Promise<void>;
}

/**
 * What every app under apps/ (except gateway and launcher) exports, built with
 * {@link defineServiceModule}. The launcher reads `needs` and `calls`, opens those
 * stores, connects those clients, runs the migrations, calls `start`, and serves the
 * returned gRPC services with health and ServiceInfo.
 */
export interface ServiceModule<N extends StoreNeeds = StoreNeeds, C extends CalledService = never> {
  name: ServiceName;
  needs: N;
  /**
   * The services it calls over gRPC. Single process: the loopback addresses of those
   * started in the same process (started first); `--target=<service>`: their
   * `*_GRPC_ADDR` from the config.
   */
  calls?: readonly C[];
  /** PostgreSQL schema the service owns (its tables live only there) */
  dbSchema?: string;
  /** plain SQL migrations for `dbSchema` (NNNN_name.sql) */
  dbMigrationsDir?: string;
  /** ClickHouse migrations (NNNN_name.sql) */
  eventMigrationsDir?: string;
  start(deps: DepsFor<N, C>): Promise<ServiceInstance>;
}

/** Every store the launcher may have opened, and every client it may have connected. */
export interface LaunchDeps extends CoreDeps {
  db?: Db;
  events?: EventStore;
  bus?: Bus;
  mailer?: Mailer;
  clients: Partial<ServiceClients>;
}

/**
 * A module as the launcher handles it, whatever its needs: the launcher opens exactly
 * `needs` and connects exactly `calls`, then checks both are there
 * ({@link assertDepsFor}) before `start`.
 */
export interface LaunchableModule extends Omit<ServiceModule<StoreNeeds, CalledService>, 'start'> {
  start(deps: LaunchDeps): Promise<ServiceInstance>;
}

/**
 * Declares a service module; `needs` and `calls` are inferred as literals, so
 * `start` receives exactly those stores and clients, typed as present.
 */
export function defineServiceModule<const N extends StoreNeeds, const C extends CalledService = never>(
  module: ServiceModule<N, C>,
): ServiceModule<N, C> & LaunchableModule {
  // sound because the launcher only calls start with deps that passed assertDepsFor(module, deps)
  return module as ServiceModule<N, C> & LaunchableModule;
}

/** The launcher's one check that it opened every declared store and connected every declared client. */
export function assertDepsFor(module: Pick<LaunchableModule, 'name' | 'needs' | 'calls'>, deps: LaunchDeps): void {
  const missing: string[] = [];
  if (module.needs.db && !deps.db) missing.push('db');
  if (module.needs.events && !deps.events) missing.push('events');
  if (module.needs.bus && !deps.bus) missing.push('bus');
  if (module.needs.mail && !deps.mailer) missing.push('mailer');
  for (const service of module.calls ?? []) if (!deps.clients[service]) missing.push(`${service} client`);
  if (missing.length > 0) throw new Error(`${module.name} was started without its ${missing.join(', ')}`);
}
