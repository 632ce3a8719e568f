import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { startTracing, traceExporterOf, tracingActive } from './tracing.js';

describe('tracingActive', () => {
  it('is true only while an SDK started by startTracing runs, and a second shutdown changes nothing', async () => {
    expect(tracingActive()).toBe(false);
    const off = await startTracing({ exporter: 'none', serviceName: 'tracing-active-test' });
    expect(tracingActive()).toBe(false);
    await off.shutdown();

    const on = await startTracing({ exporter: 'none', serviceName: 'tracing-active-test', spanExporter: new InMemorySpanExporter() });
    expect(tracingActive()).toBe(true);
    await on.shutdown();
    expect(tracingActive()).toBe(false);
    await on.shutdown();
    expect(tracingActive()).toBe(false);
  });
});

describe('traceExporterOf (the OpenTelemetry convention: an endpoint alone turns OTLP export on)', () => {
  it('is otlp with only an endpoint, none with nothing, and an explicit exporter wins', () => {
    expect(traceExporterOf({ otlpEndpoint: 'http://collector:4318' })).toBe('otlp');
    expect(traceExporterOf({})).toBe('none');
    expect(traceExporterOf({ exporter: 'none', otlpEndpoint: 'http://collector:4318' })).toBe('none');
    expect(traceExporterOf({ exporter: 'console' })).toBe('console');
  });
});
