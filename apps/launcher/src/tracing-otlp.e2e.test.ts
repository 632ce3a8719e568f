import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { makeTempDir, startLauncherProcess, startOtlpReceiver, type LauncherProcess, type OtlpReceiver, type ReceivedSpan } from '@sightline/testkit';
import { ApiClient, freshIp, register } from './test-support/api-client.js';
import { collectFirstEvent } from './test-support/first-event.js';

// Tracing as an operator turns it on by the OpenTelemetry conventions: `npm start`
// with OTEL_EXPORTER_OTLP_ENDPOINT and nothing else (no OTEL_TRACES_EXPORTER) sends
// its spans to that collector — here a local OTLP/HTTP receiver — as whole traces:
// a collected event's publish and consume under its request, and no housekeeping
// (the gateway's per-second usage sync) as traces of their own.
describe('tracing with only OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let receiver: OtlpReceiver;
  let smtp: SmtpSink;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: LauncherProcess;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    smtp = await startSmtpSink();
    dataDir = await makeTempDir('sightline-otlp-');
    const env: Record<string, string> = {
      SIGHTLINE_DATA_DIR: dataDir.path,
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      INGEST_BATCH_MAX_DELAY_MS: '50',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      // the SDK's batch processor, by its own variable: export within 0.2 s, not 5 s
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    delete process.env.OTEL_TRACES_EXPORTER;
    sightline = await startLauncherProcess({ env, timeoutMs: 180_000 });
  }, 200_000);

  afterAll(async () => {
    await sightline?.stop();
    await smtp?.close();
    await receiver?.close();
    await dataDir?.remove();
  });

  const byId = (spanId: string | undefined) => receiver.spans.find((s) => s.spanId === spanId);

  it('exports whole traces: a collected event is HTTP → publish → ingest consume in one trace', { timeout: 90_000 }, async () => {
    const collected = await collectFirstEvent(sightline.url, smtp, 'otlp');
    expect(collected.eventStatus).toBe(202);
    const requestId = collected.eventRequestId;

    let consume: ReceivedSpan | undefined;
    await expect
      .poll(
        () =>
          (consume = receiver.spans.find(
            (s) => s.name === 'ingest consume' && byId(byId(s.parentSpanId)?.parentSpanId)?.attributes['sightline.request_id'] === requestId,
          )),
        { timeout: 30_000 },
      )
      .toBeDefined();
    const publish = byId(consume!.parentSpanId)!;
    const request = byId(publish.parentSpanId)!;
    expect(publish.name).toBe('publish events.collected.*');
    expect(request.name).toBe('HTTP POST /api/event');
    expect(request.parentSpanId).toBeUndefined();
    expect(new Set([consume!.traceId, publish.traceId, request.traceId]).size).toBe(1);
    expect(new Set([consume, publish, request].map((s) => s!.service))).toEqual(new Set(['sightline-all']));
  });

  it(
    'starts no trace for housekeeping: while idle after authenticated requests, nothing but requests and batch writes is a root',
    { timeout: 90_000 },
    async () => {
      // what the process did while starting (migrations) is behind us
      const seen = receiver.spans.length;
      const client = new ApiClient(sightline.url).withIp(freshIp());
      const owner = await register(client, smtp, `otlp-idle.${Date.now().toString(36)}@mail.sightline-e2e.net`);
      expect((await client.request('GET', '/api/v1/sites', { token: owner.token })).status).toBe(200);
      // the usage sync runs every second with these counts, the store probes every 5 s, the outbox relays' polls: several of each, exported
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(receiver.spans.slice(seen).some((s) => s.name === 'HTTP GET /api/v1/sites')).toBe(true);
      const stray = receiver.spans
        .slice(seen)
        .filter((s) => !s.parentSpanId)
        .filter((s) => !s.name.startsWith('HTTP ') && s.name !== 'ingest batch write');
      expect(stray.map((s) => s.name)).toEqual([]);
      expect(receiver.spans.some((s) => s.name.includes('ReportUsage'))).toBe(false);
    },
  );
});
