import net from 'node:net';
import type { Config } from '@sightline/config';

/** A port held open until the gateway is about to listen on it. */
export interface PortReservation {
  config: Config;
  /** frees the port; call right before listening on it */
  release(): Promise<void>;
}

/** The config as given, nothing held (a configured port, or no gateway in this process). */
export function noPortReservation(config: Config): PortReservation {
  return { config, release: async () => {} };
}

/**
 * `PORT=0` asks for any free port (tests, benchmarks). The public URL, the OpenAPI
 * server URL and `docs` links are derived from the port before the gateway
 * listens, so pick the concrete port first and derive everything from it. The port
 * stays bound until `release()`: otherwise one of the loopback gRPC services, which
 * also bind port 0 while the process starts, or another process, could take it
 * before the gateway listens (EADDRINUSE at start, seen in CI).
 */
export async function reserveConcretePort(config: Config): Promise<PortReservation> {
  if (config.PORT !== 0) return noPortReservation(config);
  const probe = net.createServer();
  probe.unref(); // a start that fails before release() must not keep the process alive
  const port = await new Promise<number>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host: config.HOST, port: 0 }, () => {
      const address = probe.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  let released: Promise<void> | undefined;
  return {
    config: { ...config, PORT: port, publicUrl: config.PUBLIC_URL ? config.publicUrl : `http://localhost:${port}` },
    release: () => (released ??= new Promise<void>((resolve) => probe.close(() => resolve()))),
  };
}
