import net from 'node:net';
import type { Config } from '@sightline/config';

/**
 * `PORT=0` asks for any free port (tests, benchmarks). The public URL, the OpenAPI
 * server URL and `docs` links are derived from the port before the gateway
 * listens, so pick the concrete port first and derive everything from it.
 */
export async function withConcretePort(config: Config): Promise<Config> {
  if (config.PORT !== 0) return config;
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host: config.HOST, port: 0 }, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  return { ...config, PORT: port, publicUrl: config.PUBLIC_URL ? config.publicUrl : `http://localhost:${port}` };
}
