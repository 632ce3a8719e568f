import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { startTracing, tracingActive } from './tracing.js';

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
