import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '@sightline/config';
import { createLogger, startTracing, type Tracing } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';

// One request is one trace: HTTP span at the gateway → gRPC client → gRPC server in
// the service → database query, linked across the gRPC hop by W3C trace context.
describe('tracing through HTTP → gRPC → database', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline;

  beforeAll(async () => {
    tracing = await startTracing({ exporter: 'none', serviceName: 'sightline-test', spanExporter: exporter });
    dataDir = await makeTempDir();
    const config = loadConfig({ SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1' });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent', service: 't' }), target: 'all' });
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await tracing?.shutdown();
    await dataDir?.remove();
  });

  it('links the spans of one /readyz request into one trace', async () => {
    exporter.reset();
    const response = await fetch(`${sightline.url}/readyz`);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'HTTP GET /readyz' && s.attributes['sightline.request_id'] === requestId);
    expect(root).toBeDefined();
    const traceId = root!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const parentOf = (span: ReadableSpan) => inTrace.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);

    const clientCalls = inTrace.filter((s) => s.name === 'grpc.client ServiceInfo/GetInfo');
    expect(clientCalls).toHaveLength(6);
    for (const call of clientCalls) expect(parentOf(call)).toBe(root);

    const serverCalls = inTrace.filter((s) => s.name === 'grpc.server ServiceInfo/GetInfo');
    expect(serverCalls).toHaveLength(6);
    for (const call of serverCalls) expect(parentOf(call)?.name).toBe('grpc.client ServiceInfo/GetInfo');

    const dbQueries = inTrace.filter((s) => s.name === 'db.query');
    // identity, sites and settings each probe their PostgreSQL schema's database
    expect(dbQueries.length).toBeGreaterThanOrEqual(3);
    for (const query of dbQueries) expect(parentOf(query)?.name).toBe('grpc.server ServiceInfo/GetInfo');
  });
});
