import { describe, expect, it } from 'vitest';
import type { UntypedSubjects } from './bus.js';
import { StreamNotFoundError } from './bus-errors.js';
import { startDurableConsumer } from './durable-consumer.js';
import { LocalBus } from './local-bus.js';
import { waitFor } from './testing/index.js';

describe('startDurableConsumer', () => {
  it('keeps retrying while the stream is missing, then consumes once it exists', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    const failures: unknown[] = [];
    const delays: number[] = [];
    const seen: unknown[] = [];
    const consumer = startDurableConsumer<UntypedSubjects>(
      bus,
      { stream: 'LATE', durable: 'reader', filterSubject: 'late.x', handler: async (m) => void seen.push(m.data) },
      { firstDelayMs: 20, maxDelayMs: 40, onRetry: (error, delayMs) => void (failures.push(error), delays.push(delayMs)) },
    );
    try {
      await waitFor(() => failures.length >= 3);
      expect(failures[0]).toBeInstanceOf(StreamNotFoundError);
      // doubling, capped
      expect(delays.slice(0, 3)).toEqual([20, 40, 40]);
      await bus.ensureStreams([{ name: 'LATE', subjects: ['late.>'] }]);
      await bus.publish('late.x', 'hello');
      await consumer.started;
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual(['hello']);
    } finally {
      await consumer.stop();
      await bus.close();
    }
  });

  it('stop() before the stream appears ends the retries', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    let failures = 0;
    const consumer = startDurableConsumer<UntypedSubjects>(
      bus,
      { stream: 'NEVER', durable: 'd', handler: async () => {} },
      { firstDelayMs: 10, onRetry: () => void failures++ },
    );
    await waitFor(() => failures >= 1);
    await consumer.stop();
    const after = failures;
    await new Promise((r) => setTimeout(r, 100));
    expect(failures).toBe(after);
    await bus.close();
  });
});
