import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { commonV1 } from '@sightline/proto';
import { inUnsampledRoot, type Logger } from '@sightline/telemetry';
import { unary } from './unary-handler.js';
import { runProbes, type StoreProbe, type StoreProbeResult } from './store-probe.js';

export interface ServiceRegistration {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  /** service name, e.g. "identity" */
  name: string;
  version: string;
  host: string;
  /** 0 picks a free port */
  port: number;
  services: readonly ServiceRegistration[];
  probes: readonly StoreProbe[];
  probeIntervalMs: number;
  /**
   * a client connection is closed (GOAWAY) after about this long, so clients re-resolve
   * the service's name and spread over replicas added since; 0 or absent: never
   */
  maxConnectionAgeMs?: number;
  log: Logger;
}

/**
 * How long calls already running on a connection closed for its age may go on: the
 * longest call a caller makes (an import upload's 30 min deadline), so the age never cuts
 * a call. The connection closes as soon as its last call ends.
 */
const CONNECTION_AGE_GRACE_MS = 30 * 60_000;

export interface RunningGrpcServer {
  name: string;
  /** host:port to dial */
  address: string;
  port: number;
  /** stop taking calls, let in-flight ones finish for up to `graceMs`, then cut the rest */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts a service's gRPC server with the standard grpc.health.v1 service and
 * Sightline's ServiceInfo. Health reports SERVING only while every store probe of
 * the service succeeds (re-checked every `probeIntervalMs`), so the gateway's
 * /readyz — and Kubernetes — see a service whose database is gone as not ready.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const { log } = options;
  const server = new Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    ...(options.maxConnectionAgeMs
      ? { 'grpc.max_connection_age_ms': options.maxConnectionAgeMs, 'grpc.max_connection_age_grace_ms': CONNECTION_AGE_GRACE_MS }
      : {}),
  });
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  const startedAt = new Date().toISOString();
  let lastProbe: StoreProbeResult[] = [];

  const probe = async (): Promise<StoreProbeResult[]> => {
    lastProbe = await runProbes(options.probes);
    const serving = lastProbe.every((result) => result.reachable);
    health.setStatus('', serving ? 'SERVING' : 'NOT_SERVING');
    health.setStatus(`sightline.${options.name}`, serving ? 'SERVING' : 'NOT_SERVING');
    for (const failed of lastProbe.filter((result) => !result.reachable)) {
      log.warn({ store: failed.role, kind: failed.kind, detail: failed.detail }, 'store unreachable');
    }
    return lastProbe;
  };

  const info: commonV1.ServiceInfoServiceServer = {
    getInfo: unary('ServiceInfo/GetInfo', log, async () => {
      // a fresh probe, so /readyz never reports a stale "reachable"
      const stores = await probe();
      return {
        service: options.name,
        version: options.version,
        startedAt,
        stores: stores.map((s) => ({ role: s.role, kind: s.kind, reachable: s.reachable, detail: s.detail, latencyMs: s.latencyMs })),
      };
    }),
  };
  server.addService(commonV1.ServiceInfoServiceService, info as unknown as UntypedServiceImplementation);
  for (const service of options.services) server.addService(service.definition, service.implementation);

  // the periodic store probes are housekeeping, not a trace each (a GetInfo's probe joins its request's)
  await inUnsampledRoot(probe);
  const timer = setInterval(() => void inUnsampledRoot(probe).catch(() => {}), options.probeIntervalMs);
  timer.unref();

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
  });
  const dialHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  log.info({ port }, 'gRPC server listening');

  return {
    name: options.name,
    address: `${dialHost}:${port}`,
    port,
    stop: async (graceMs: number) => {
      clearInterval(timer);
      health.setStatus('', 'NOT_SERVING');
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          log.warn({ graceMs }, 'grace period over, cancelling in-flight calls');
          server.forceShutdown();
          resolve();
        }, graceMs);
        // tryShutdown refuses new calls and waits for in-flight ones to finish
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
