import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { startTracing, type Tracing } from './tracing.js';

describe('trace ids on log lines', () => {
  let tracing: Tracing;
  beforeAll(async () => {
    tracing = await startTracing({ exporter: 'none', serviceName: 'log-mixin-test', spanExporter: new InMemorySpanExporter() });
  });
  afterAll(() => tracing.shutdown());

  it('adds trace_id and span_id of the active span, and nothing outside a span', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }) });
    log.info('outside');
    const ids = trace.getTracer('t').startActiveSpan('work', (span) => {
      log.child({ request_id: 'req_1' }).info('inside');
      span.end();
      return span.spanContext();
    });
    const [outside, inside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(outside).not.toHaveProperty('trace_id');
    expect(inside).toMatchObject({ msg: 'inside', request_id: 'req_1', trace_id: ids.traceId, span_id: ids.spanId });
  });
});
