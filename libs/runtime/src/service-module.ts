import type { Db } from '@sightline/db';
import type { EventStore } from '@sightline/event-store';
import type { Bus } from '@sightline/bus';
import type { Mailer } from '@sightline/mailer';
import type { Config } from '@sightline/config';
import type { ServiceRegistration } from '@sightline/grpc-kit';
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

export interface ServiceDeps {
  config: Config;
  log: Logger;
  clock: Clock;
  db?: Db;
  events?: EventStore;
  bus?: Bus;
  mailer?: Mailer;
}

/** What a started service hands back: its gRPC services, and how to stop its background work. */
export interface ServiceInstance {
  services: ServiceRegistration[];
  /** stops consumers and timers; stores are closed by the launcher afterwards */
  stop(): Promise<void>;
}

/**
 * What every app under apps/ (except gateway and launcher) exports. The launcher
 * reads `needs`, opens those stores, runs the migrations, calls `start`, and serves
 * the returned gRPC services with health and ServiceInfo.
 */
export interface ServiceModule {
  name: ServiceName;
  needs: StoreNeeds;
  /** PostgreSQL schema the service owns (its tables live only there) */
  dbSchema?: string;
  /** plain SQL migrations for `dbSchema` (NNNN_name.sql) */
  dbMigrationsDir?: string;
  /** ClickHouse migrations (NNNN_name.sql) */
  eventMigrationsDir?: string;
  start(deps: ServiceDeps): Promise<ServiceInstance>;
}
