import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParentBasedSampler, SamplingDecision, InMemorySpanExporter, type ReadableSpan, type Sampler } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger, startTracing, type Tracing } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { collectFirstEvent } from './test-support/first-event.js';

/**
 * Samples no HTTP request and every other root: what a ratio sampler does to the
 * requests it drops, made certain. A span under a dropped request must follow its
 * parent (parent-based, the SDK's default), so nothing of a request may be exported;
 * only what is a root by design — ingest's batch write, linked to the events it stores — is.
 */
const dropRequests: Sampler = {
  shouldSample: (_context, _traceId, spanName) => ({
    decision: spanName.startsWith('HTTP ') ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
  }),
  toString: () => 'DropRequests',
};

describe('an unsampled request propagates its context: none of its spans becomes a root of its own', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'sightline-unsampled-test', spanExporter: exporter, sampler: new ParentBasedSampler({ root: dropRequests }) });
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      INGEST_BATCH_MAX_DELAY_MS: '50',
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent', service: 't' }), target: 'all' });
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await tracing?.shutdown();
    await smtp?.close();
    await dataDir?.remove();
  });

  it('exports nothing of registration, site creation, a collected event (publish, consume) or the usage sync after them', { timeout: 90_000 }, async () => {
    exporter.reset(); // the start's migrations are behind us
    expect((await collectFirstEvent(sightline.url!, smtp, 'unsampled')).eventStatus).toBe(202);
    // the event is stored (its batch write is a sampled root by design), and the usage sync has run
    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'ingest batch write'), { timeout: 30_000 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const rootOf = (span: ReadableSpan): ReadableSpan => {
      let at = span;
      while (at.parentSpanContext && byId.has(at.parentSpanContext.spanId)) at = byId.get(at.parentSpanContext.spanId)!;
      return at;
    };
    const outsideBatchWrites = spans.filter((s) => rootOf(s).name !== 'ingest batch write' || rootOf(s).parentSpanContext);
    expect(outsideBatchWrites.map((s) => s.name)).toEqual([]);
  });
});
