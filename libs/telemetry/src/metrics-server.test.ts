import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { metricsRegistry, statusClass } from './metrics.js';

describe('metrics server', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves its registry at GET /metrics in the Prometheus text format, and 404 elsewhere', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'probe_total', help: 'a probe', labelNames: ['kind'], registers: [registry] });
    counter.inc({ kind: 'a' }, 3);
    counter.inc({ kind: 'b' });
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
    const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(registry.contentType);
    const text = await response.text();
    expect(text).toContain('# TYPE probe_total counter');
    expect(text).toMatch(/^probe_total\{kind="a"\} 3$/m);
    expect(text).toMatch(/^probe_total\{kind="b"\} 1$/m);
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('serves the process registry by default, with process metrics and every Sightline metric declared', async () => {
    server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    for (const name of [
      'sightline_http_requests_total',
      'sightline_http_request_duration_seconds',
      'sightline_grpc_server_handled_total',
      'sightline_grpc_server_handling_seconds',
      'sightline_bus_publish_duration_seconds',
      'sightline_ingest_lag_seconds',
      'sightline_ingest_batch_size',
      'sightline_ingest_dropped_events_total',
      'sightline_ingest_stored_events_total',
      'sightline_query_duration_seconds',
      'sightline_process_cpu_seconds_total',
    ])
      expect(text, name).toContain(`# TYPE ${name} `);
    expect(metricsRegistry.getMetricsAsArray().length).toBeGreaterThan(10);
  });

  it('refuses a port already taken', async () => {
    server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    await expect(startMetricsServer({ host: '127.0.0.1', port: server.port })).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('statusClass', () => {
  it('groups statuses by hundred', () => {
    expect([200, 202, 301, 404, 429, 500, 503].map(statusClass)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '5xx', '5xx']);
  });
});
