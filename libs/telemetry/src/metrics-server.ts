import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { metricsRegistry } from './metrics.js';

export interface MetricsServer {
  /** the port actually bound (differs from the configured one when that was an ephemeral 0 in tests) */
  port: number;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  host: string;
  port: number;
  registry?: Registry;
}

/**
 * A tiny HTTP server answering `GET /metrics` in the Prometheus text format, on its
 * own port so scraping never competes with (or is exposed like) the public API.
 * Anything else is a 404; nothing about the request is logged.
 */
export async function startMetricsServer({ host, port, registry = metricsRegistry }: MetricsServerOptions): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
