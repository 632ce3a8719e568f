import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import {
  busPublishDuration,
  createLogger,
  httpRequests,
  ingestStoredEvents,
  queryDuration,
  readMetricValue,
  startMetricsServer,
  startTracing,
  type MetricsServer,
  type Tracing,
} from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

// Issue 13's telemetry, end to end in one process on real PostgreSQL + chDB + the
// journaled local bus: the span tree of a query and of a collected event (across the
// bus hop, up to the linked batch insert), the /metrics figures those requests move,
// and the log lines they leave (ids on them; the visitor's IP and UA never).
const pgGate = await backendGate('postgres');

describe.skipIf(!pgGate.available)('telemetry: traces, metrics and logs of a query and a collected event', () => {
  const exporter = new InMemorySpanExporter();
  const logLines: string[] = [];
  let tracing: Tracing;
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let metrics: MetricsServer;
  let client: ApiClient;
  let owner: Registered;
  let siteId: number;
  let trackingKey: string;
  let host: string;

  // a visitor nobody else uses: neither may appear in any log line
  const VISITOR_IP = '192.0.2.187';
  const VISITOR_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Qx7TelemetryMarker';

  beforeAll(async () => {
    tracing = await startTracing({ exporter: 'none', serviceName: 'sightline-telemetry-test', spanExporter: exporter });
    database = await createTestDatabase(pgGate.url, 'sightline_telemetry_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      PUBLIC_URL: 'https://stats.sightline-e2e.net',
      INGEST_BATCH_MAX_DELAY_MS: '50',
    });
    const destination = new Writable({ write: (chunk, _encoding, done) => (logLines.push(String(chunk)), done()) });
    sightline = await startSightline({ config, log: createLogger({ level: 'debug', destination }), target: 'all' });
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    owner = await register(client, smtp, `telemetry.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    host = `t-${Date.now().toString(36)}.sightline-e2e.net`;
    const created = await client.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${host}` },
    });
    expect(created.status).toBe(201);
    siteId = created.body.site_id;
    trackingKey = /\/js\/([A-Za-z0-9]+)\.js$/.exec(created.body.script_url)![1]!;
  }, 120_000);

  afterAll(async () => {
    await metrics?.close();
    await sightline?.stop();
    await tracing?.shutdown();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  const spansOfTrace = (traceId: string) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const parentIn = (spans: ReadableSpan[], span: ReadableSpan) => spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
  /** the names from `span` up to the root of its trace */
  const ancestry = (spans: ReadableSpan[], span: ReadableSpan): string[] => {
    const names: string[] = [];
    for (let at = parentIn(spans, span); at; at = parentIn(spans, at)) names.push(at.name);
    return names;
  };

  it('traces POST /query as HTTP → gRPC client → gRPC server → ClickHouse, and counts it by route and shape', async () => {
    const httpBefore = await readMetricValue(httpRequests, { route: '/api/v1/query', method: 'POST', status_class: '2xx' });
    const shapeBefore = await readMetricValue(queryDuration, { shape: 'aggregate' }, '_count');
    // the embedded engine loads (and migrates) on its first statement: do that outside
    // the traced request, so the trace shows a query's steady-state shape
    await sightline.events!.query('SELECT 1');
    exporter.reset();

    const answer = await client.request('POST', '/api/v1/query', {
      token: owner.token,
      body: { site_id: siteId, metrics: ['visitors'], date_range: ['2026-01-01', '2026-01-07'] },
    });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get('x-request-id');

    const root = await expect
      .poll(() => exporter.getFinishedSpans().find((s) => s.name === 'HTTP POST /api/v1/query' && s.attributes['sightline.request_id'] === requestId), {
        timeout: 5_000,
      })
      .toBeDefined()
      .then(() => exporter.getFinishedSpans().find((s) => s.name === 'HTTP POST /api/v1/query' && s.attributes['sightline.request_id'] === requestId)!);
    expect(root.kind).toBe(SpanKind.SERVER);
    expect(root.parentSpanContext).toBeUndefined();
    const spans = spansOfTrace(root.spanContext().traceId);

    const queryClient = spans.find((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('grpc.client') && s.name.endsWith('/Query'));
    expect(queryClient, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(parentIn(spans, queryClient!)).toBe(root);
    const queryServer = spans.find((s) => s.kind === SpanKind.SERVER && s.name.startsWith('grpc.server') && s.name.endsWith('/Query'));
    expect(parentIn(spans, queryServer!)).toBe(queryClient);

    const clickhouse = spans.filter((s) => s.attributes['db.system'] === 'clickhouse');
    // the plan's statement(s) + the has_import probe, all inside the Query handler
    expect(clickhouse.length).toBeGreaterThanOrEqual(2);
    for (const statement of clickhouse) {
      expect(statement.name).toMatch(/^SELECT /);
      expect(ancestry(spans, statement)).toEqual(expect.arrayContaining([queryServer!.name, queryClient!.name, root.name]));
    }

    expect(await readMetricValue(httpRequests, { route: '/api/v1/query', method: 'POST', status_class: '2xx' })).toBe(httpBefore + 1);
    expect(await readMetricValue(queryDuration, { shape: 'aggregate' }, '_count')).toBe(shapeBefore + 1);
  });

  it('traces a collected event from POST /api/event through the bus to ingest, and links the stored batch to it', async () => {
    const storedBefore = await readMetricValue(ingestStoredEvents, {});
    const publishBefore = await readMetricValue(busPublishDuration, { adapter: 'local', subject: 'events.collected.*', outcome: 'ok' }, '_count');
    exporter.reset();

    const event = { k: trackingKey, n: 'pageview', u: `https://${host}/pricing`, d: host, s: 'tab-telemetry' };
    const response = await fetch(`${sightline.url}/api/event`, {
      method: 'POST',
      body: JSON.stringify(event),
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': VISITOR_IP, 'user-agent': VISITOR_UA, origin: `https://${host}` },
    });
    expect(response.status).toBe(202);
    const requestId = response.headers.get('x-request-id');

    const findBatch = (stage = 'events') =>
      exporter
        .getFinishedSpans()
        .find(
          (s) => s.name === 'ingest batch write' && s.attributes['sightline.batch.stage'] === stage && (s.attributes['sightline.batch.events'] as number) >= 1,
        );
    await expect.poll(() => findBatch('sessions'), { timeout: 10_000 }).toBeDefined();
    const root = exporter.getFinishedSpans().find((s) => s.name === 'HTTP POST /api/event' && s.attributes['sightline.request_id'] === requestId)!;
    expect(root).toBeDefined();
    const spans = spansOfTrace(root.spanContext().traceId);

    const publish = spans.find((s) => s.kind === SpanKind.PRODUCER);
    expect(publish?.name).toBe('publish events.collected.*');
    expect(parentIn(spans, publish!)).toBe(root);
    const consume = spans.find((s) => s.kind === SpanKind.CONSUMER);
    expect(consume?.name).toBe('ingest consume');
    expect(parentIn(spans, consume!)).toBe(publish);

    // the batch is its own trace (many parents), linked to this event's consume span
    const batch = findBatch()!;
    expect(batch.parentSpanContext).toBeUndefined();
    expect(batch.links.map((l) => l.context.spanId)).toContain(consume!.spanContext().spanId);
    const batchSpans = spansOfTrace(batch.spanContext().traceId);
    const inserts = batchSpans.filter((s) => s.attributes['db.system'] === 'clickhouse' && s.attributes['sightline.event_store.operation'] === 'insert');
    expect(inserts.length).toBeGreaterThanOrEqual(1);
    for (const insert of inserts) expect(parentIn(batchSpans, insert)).toBe(batch);
    expect(inserts.map((s) => s.attributes['db.statement'])).toEqual(expect.arrayContaining([expect.stringContaining('events')]));
    // its sessions go in as a second stage: a root span of its own, linked the same way
    const sessionsStage = findBatch('sessions')!;
    expect(sessionsStage.parentSpanContext).toBeUndefined();
    expect(sessionsStage.links.map((l) => l.context.spanId)).toContain(consume!.spanContext().spanId);
    const sessionInserts = spansOfTrace(sessionsStage.spanContext().traceId).filter((s) => s.attributes['sightline.event_store.operation'] === 'insert');
    expect(sessionInserts.map((s) => s.attributes['db.statement'])).toEqual(expect.arrayContaining([expect.stringContaining('sessions')]));

    expect(await readMetricValue(ingestStoredEvents, {})).toBe(storedBefore + 1);
    expect(await readMetricValue(busPublishDuration, { adapter: 'local', subject: 'events.collected.*', outcome: 'ok' }, '_count')).toBe(publishBefore + 1);
  });

  it('serves those figures at /metrics in the Prometheus text format', async () => {
    expect((await client.request('GET', `/api/v1/sites/${siteId}/goals`, { token: owner.token })).status).toBe(200);
    const response = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/^sightline_http_requests_total\{route="\/api\/v1\/query",method="POST",status_class="2xx"\} 1$/m);
    expect(text).toMatch(/^sightline_query_duration_seconds_count\{shape="aggregate"\} 1$/m);
    expect(text).toMatch(/^sightline_ingest_stored_events_total 1$/m);
    expect(text).toMatch(/^sightline_grpc_server_handled_total\{method="[A-Za-z]+\/Query",code="OK"\} 1$/m);
    expect(text).toMatch(/^sightline_ingest_lag_seconds_count 1$/m);
    // no raw URL ever becomes a label
    expect(text).not.toContain('/pricing');
    expect(text).toMatch(/^sightline_http_requests_total\{route="\/api\/v1\/sites\/:id\/goals",method="GET",status_class="2xx"\} 1$/m);
    expect(text).not.toContain(`/api/v1/sites/${siteId}/`);
    expect((await fetch(`http://127.0.0.1:${metrics.port}/other`)).status).toBe(404);
  });

  it('puts request_id and trace_id on log lines of a request, and never the visitor’s IP or User-Agent', async () => {
    const response = await client.request('GET', '/readyz', { headers: { 'x-request-id': 'caller-trace-check' } });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const line = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.request_id === requestId && l.client_request_id === 'caller-trace-check');
    expect(line).toBeDefined();
    expect(line!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(line!.span_id).toMatch(/^[0-9a-f]{16}$/);
    const root = exporter.getFinishedSpans().find((s) => s.attributes['sightline.request_id'] === requestId);
    expect(line!.trace_id).toBe(root?.spanContext().traceId);

    // the collected event of the previous test carried them through gateway, bus and ingest,
    // whose log lines (all of them, at debug level) are captured here
    const services = new Set(logLines.map((l) => (JSON.parse(l) as { service?: string }).service));
    expect(services).toContain('gateway');
    expect(services).toContain('ingest');
    const all = logLines.join('');
    expect(all).not.toContain(VISITOR_IP);
    expect(all).not.toContain('Qx7TelemetryMarker');
  });
});
