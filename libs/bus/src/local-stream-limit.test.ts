import { busStreamHeldBytes, busStreamHeldMessages, busStreamLimitBytes, metricsRegistry, readMetricValue } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamFullError } from './bus-errors.js';
import type { DeliveredMessage, UntypedSubjects } from './bus.js';
import { LocalBus } from './local-bus.js';
import { StreamJournal } from './local-stream-journal.js';
import { waitFor } from './testing/index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A 100-character payload: `{"pad":"` + 90 characters + `"}` (the limit counts the JSON text). */
const payload = (i: number) => ({ pad: String(i).padStart(90, '0') });
const PAYLOAD_LENGTH = JSON.stringify(payload(0)).length;

async function openBus(journalDir: string | undefined, maxStreamBytes: number): Promise<LocalBus<UntypedSubjects>> {
  const bus = new LocalBus<UntypedSubjects>({ ...(journalDir ? { journalDir } : {}), maxStreamBytes });
  cleanups.push(() => bus.close());
  await bus.ensureStreams([{ name: 'WQ', subjects: ['wq.*'], retention: 'workqueue' }]);
  return bus;
}

describe('LocalBus maxStreamBytes', () => {
  it('counts the JSON text of a payload', () => {
    expect(PAYLOAD_LENGTH).toBe(100);
  });

  for (const persistence of ['journal', 'memory'] as const) {
    it(`refuses a publish past the limit and stores nothing of it; acks make room again (${persistence})`, async () => {
      const dir = persistence === 'journal' ? await makeTempDir('sightline-bus-limit-') : undefined;
      if (dir) cleanups.push(dir.remove);
      // room for exactly three messages
      const bus = await openBus(dir?.path, 3 * PAYLOAD_LENGTH);
      // four in one turn: the ones still waiting for their journal write count too
      const results = await Promise.allSettled([0, 1, 2, 3].map((i) => bus.publish('wq.1', payload(i))));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      const refused = (results[3] as PromiseRejectedResult).reason as StreamFullError;
      expect(refused).toBeInstanceOf(StreamFullError);
      expect(refused).toMatchObject({ stream: 'WQ', limitBytes: 300 });
      expect(await bus.streamState('WQ')).toMatchObject({ lastSeq: 3, messages: 3 });

      // a consumer takes two: the stream holds one, so two more fit and a third does not
      const taken: number[] = [];
      const sub = await bus.consume({
        stream: 'WQ',
        durable: 'ingest',
        handler: async (m: DeliveredMessage<{ pad: string }>) => {
          if (taken.length < 2) taken.push(Number(m.data.pad));
          else await m.nak(60_000);
        },
      });
      await waitFor(async () => (await bus.streamState('WQ'))?.messages === 1, 5_000);
      await Promise.all([4, 5].map((i) => bus.publish('wq.2', payload(i))));
      await expect(bus.publish('wq.2', payload(6))).rejects.toBeInstanceOf(StreamFullError);
      await sub.stop();
      expect(taken).toEqual([0, 1]);
      expect(await bus.streamState('WQ')).toMatchObject({ lastSeq: 5, messages: 3 });
    });
  }

  it('counts what a reopened journal still holds', async () => {
    const dir = await makeTempDir('sightline-bus-limit-');
    cleanups.push(dir.remove);
    const first = await openBus(dir.path, 2 * PAYLOAD_LENGTH);
    await first.publish('wq.1', payload(1));
    await first.publish('wq.1', payload(2));
    await first.close();
    const again = await openBus(dir.path, 2 * PAYLOAD_LENGTH);
    await expect(again.publish('wq.1', payload(3))).rejects.toBeInstanceOf(StreamFullError);
    expect(await again.streamState('WQ')).toMatchObject({ lastSeq: 2, messages: 2 });
  });

  it('gives back the room of a turn whose journal write failed', async () => {
    const dir = await makeTempDir('sightline-bus-limit-');
    cleanups.push(dir.remove);
    const bus = await openBus(dir.path, 2 * PAYLOAD_LENGTH);
    vi.spyOn(StreamJournal.prototype, 'appendAll').mockImplementationOnce(() => {
      throw new Error('ENOSPC: no space left on device');
    });
    const failed = await Promise.allSettled([bus.publish('wq.1', payload(1)), bus.publish('wq.1', payload(2))]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // nothing was stored, so both fit again
    await Promise.all([bus.publish('wq.1', payload(1)), bus.publish('wq.1', payload(2))]);
    expect(await bus.streamState('WQ')).toMatchObject({ lastSeq: 2, messages: 2 });
  });

  it('shows what each stream holds and its limit in /metrics, read at scrape time, until the bus closes', async () => {
    const bus = new LocalBus<UntypedSubjects>({ maxStreamBytes: 10 * PAYLOAD_LENGTH });
    cleanups.push(() => bus.close());
    await bus.ensureStreams([{ name: 'HELD', subjects: ['held.*'], retention: 'workqueue' }]);
    await Promise.all([1, 2, 3].map((i) => bus.publish('held.1', payload(i))));
    const stream = { stream: 'HELD' };
    expect(await readMetricValue(busStreamHeldMessages, stream)).toBe(3);
    expect(await readMetricValue(busStreamHeldBytes, stream)).toBe(3 * PAYLOAD_LENGTH);
    expect(await readMetricValue(busStreamLimitBytes, stream)).toBe(1_000);
    expect(await metricsRegistry.metrics()).toContain('sightline_bus_stream_held_bytes{stream="HELD"} 300');
    await bus.close();
    expect(await metricsRegistry.metrics()).not.toContain('stream="HELD"');
  });

  it('refuses no message that fits, without a limit or below it', async () => {
    const unlimited = new LocalBus<UntypedSubjects>();
    cleanups.push(() => unlimited.close());
    await unlimited.ensureStreams([{ name: 'WQ', subjects: ['wq.*'], retention: 'workqueue' }]);
    await Promise.all(Array.from({ length: 1_000 }, (_, i) => unlimited.publish('wq.1', payload(i))));
    expect(await unlimited.streamState('WQ')).toMatchObject({ messages: 1_000 });
  });
});
