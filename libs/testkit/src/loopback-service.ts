import { credentials, type Client } from '@grpc/grpc-js';
import { createClient, startGrpcServer, type CallOptionsLite, type RunningGrpcServer } from '@sightline/grpc-kit';
import type { ServiceInstance } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

type ClientConstructor<C> = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => C;

export interface LoopbackService<I extends ServiceInstance, C extends Client> {
  instance: I;
  /** a client of the served service, as the gateway would hold */
  client: C;
  /** closes the client, stops the server (1 s grace), then stops the instance */
  close(): Promise<void>;
}

/**
 * Serves a started service instance for real: its gRPC services on 127.0.0.1 port 0
 * (health and ServiceInfo included, no store probes), and a client of it. If the
 * server cannot start, the instance is stopped before the error propagates.
 */
export async function serveOnLoopback<I extends ServiceInstance, C extends Client>(options: {
  name: string;
  log: Logger;
  start: () => Promise<I>;
  client: ClientConstructor<C>;
}): Promise<LoopbackService<I, C>> {
  const instance = await options.start();
  let server: RunningGrpcServer;
  try {
    server = await startGrpcServer({
      name: options.name,
      version: '0.0.0-test',
      host: '127.0.0.1',
      port: 0,
      services: instance.services,
      probes: [],
      probeIntervalMs: 60_000,
      log: options.log,
    });
  } catch (error) {
    await instance.stop();
    throw error;
  }
  const client = createClient(options.client, server.address);
  return {
    instance,
    client,
    close: async () => {
      client.close();
      await server.stop(1_000);
      await instance.stop();
    },
  };
}

/** Call options for a test's RPCs: a fresh request id each call (`req_test_1`, `req_test_2`, …) and a deadline. */
export function testCallOptions(deadlineMs = 30_000): () => CallOptionsLite {
  let n = 0;
  return () => ({ requestId: `req_test_${++n}`, deadlineMs });
}
