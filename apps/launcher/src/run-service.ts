import type { Config } from '@sightline/config';
import { startGrpcServer, type RunningGrpcServer } from '@sightline/grpc-kit';
import { assertDepsFor, type Clock, type LaunchDeps, type LaunchableModule, type ServiceName } from '@sightline/runtime';
import { connectServiceClients, type CalledService } from '@sightline/service-clients';
import type { Logger } from '@sightline/telemetry';
import { probesFor, type Stores } from './stores.js';
import { VERSION } from './version.js';
import { migrateModule } from './migrate.js';
import { channelTuningOf } from './service-addresses.js';
import { UNTIMED_PHASES, type ShutdownPhases } from './shutdown-phases.js';

export interface RunningService {
  name: ServiceName;
  server: RunningGrpcServer;
  /** Drains gRPC calls (up to graceMs), then stops the service's work; each step timed in `phases`. */
  stop(graceMs: number, phases?: ShutdownPhases): Promise<void>;
}

/** Migrates a service's stores, starts it, and serves it over gRPC with health and ServiceInfo. */
export async function runService(
  module: LaunchableModule,
  stores: Stores,
  options: { config: Config; log: Logger; clock: Clock; host: string; port: number; addresses: Partial<Record<CalledService, string>> },
): Promise<RunningService> {
  // a process running one service already names it on every line
  const log = options.log.bindings().service ? options.log : options.log.child({ service: module.name });
  await migrateModule(module, stores, options.config, log);
  const calls = module.calls ?? [];
  const unknown = calls.filter((service) => !options.addresses[service]);
  if (unknown.length > 0) throw new Error(`${module.name} calls ${unknown.join(', ')}, whose address is unknown`);
  const connected = connectServiceClients(
    Object.fromEntries(calls.map((service) => [service, options.addresses[service]!])) as Record<CalledService, string>,
    channelTuningOf(options.config),
  );
  const deps: LaunchDeps = {
    config: options.config,
    log,
    clock: options.clock,
    db: stores.db,
    events: stores.events,
    bus: stores.bus,
    mailer: stores.mailer,
    clients: connected.clients,
  };
  let instance;
  try {
    assertDepsFor(module, deps);
    instance = await module.start(deps);
  } catch (error) {
    connected.close();
    throw error;
  }
  const server = await startGrpcServer({
    name: module.name,
    version: VERSION,
    host: options.host,
    port: options.port,
    services: instance.services,
    probes: probesFor(stores, module.needs),
    probeIntervalMs: options.config.HEALTH_PROBE_INTERVAL_MS,
    maxConnectionAgeMs: options.config.GRPC_MAX_CONNECTION_AGE_MS,
    log,
  });
  return {
    name: module.name,
    server,
    stop: async (graceMs, phases = UNTIMED_PHASES) => {
      await phases.run(`${module.name}: gRPC drain`, () => server.stop(graceMs));
      await phases.run(`${module.name}: work`, () => instance.stop());
      connected.close();
    },
  };
}
