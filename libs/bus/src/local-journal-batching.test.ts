import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@sightline/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveredMessage, UntypedSubjects } from './bus.js';
import { LocalBus } from './local-bus.js';
import { StreamJournal } from './local-stream-journal.js';
import { waitFor } from './testing/index.js';

// The appends of one event-loop turn share one journal write (local-stream.ts, `append`).
describe('LocalBus journal: one write per turn', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function openBus(dir?: string) {
    const journalDir = dir ?? (await makeTempDir('sightline-batch-')).path;
    const bus = new LocalBus<UntypedSubjects>({ journalDir });
    await bus.ensureStreams([{ name: 'EV', subjects: ['ev.*'] }]);
    return { bus, journalDir, journalFile: path.join(journalDir, 'streams', 'EV', 'journal.log') };
  }

  const journalPayloads = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('M\t'))
      .map((line) => JSON.parse(line.slice(line.indexOf('\t', 2) + 1)) as { i: number });

  it('writes the publishes of one turn with one write, in order, each resolved only once written', async () => {
    const { bus, journalDir, journalFile } = await openBus();
    const appends = vi.spyOn(StreamJournal.prototype, 'appendAll');
    const published = Array.from({ length: 200 }, (_, i) => bus.publish(`ev.${i % 4}`, { i }).then(() => journalPayloads(journalFile).some((p) => p.i === i)));
    // every publish saw its own record on disk when it resolved
    expect(await Promise.all(published)).toEqual(published.map(() => true));
    expect(appends).toHaveBeenCalledTimes(1);
    expect(journalPayloads(journalFile).map((p) => p.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // publishes of later turns are later writes
    await bus.publish('ev.0', { i: 200 });
    await bus.publish('ev.0', { i: 201 });
    expect(appends).toHaveBeenCalledTimes(3);
    expect((await bus.streamState('EV'))?.lastSeq).toBe(202);
    await bus.close();

    // what was acknowledged is what a restart finds, in publish order, on the same subjects
    const reopened = new LocalBus<UntypedSubjects>({ journalDir });
    cleanups.push(() => reopened.close());
    const seen: Array<{ subject: string; i: number }> = [];
    await reopened.consume({
      stream: 'EV',
      durable: 'reader',
      handler: async (message: DeliveredMessage<unknown>) => {
        seen.push({ subject: message.subject, i: (message.data as { i: number }).i });
      },
    });
    await waitFor(() => seen.length === 202);
    expect(seen).toEqual(Array.from({ length: 202 }, (_, i) => ({ subject: `ev.${i < 200 ? i % 4 : 0}`, i })));
    expect((await reopened.streamState('EV'))?.lastSeq).toBe(202);
  });

  it('stores a msgId published twice in the same turn once', async () => {
    const { bus, journalFile } = await openBus();
    cleanups.push(() => bus.close());
    await Promise.all([
      bus.publish('ev.1', { i: 1 }, { msgId: 'same' }),
      bus.publish('ev.1', { i: 2 }, { msgId: 'same' }),
      bus.publish('ev.1', { i: 3 }, { msgId: 'other' }),
    ]);
    expect(journalPayloads(journalFile).map((p) => p.i)).toEqual([1, 3]);
    await bus.publish('ev.1', { i: 4 }, { msgId: 'same' });
    expect((await bus.streamState('EV'))?.messages).toBe(2);
  });

  it('rejects every publish of a turn whose write failed and leaves no trace: no sequence used, nothing delivered, nothing on disk', async () => {
    const { bus, journalFile } = await openBus();
    cleanups.push(() => bus.close());
    const delivered: number[] = [];
    await bus.consume({
      stream: 'EV',
      durable: 'd',
      handler: async (message: DeliveredMessage<unknown>) => void delivered.push((message.data as { i: number }).i),
    });
    await bus.publish('ev.0', { i: 0 });
    await waitFor(() => delivered.length === 1);
    const sizeBefore = readFileSync(journalFile).length;
    vi.spyOn(StreamJournal.prototype, 'appendAll').mockImplementationOnce(() => {
      throw new Error('ENOSPC: no space left on device');
    });
    const failed = await Promise.allSettled([bus.publish('ev.0', { i: 1 }), bus.publish('ev.1', { i: 2 }, { msgId: 'retry-me' })]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(readFileSync(journalFile).length).toBe(sizeBefore);
    expect((await bus.streamState('EV'))?.lastSeq).toBe(1);
    // the next turn writes again; the failed msgId is not remembered as stored, so its retry is kept
    await bus.publish('ev.1', { i: 2 }, { msgId: 'retry-me' });
    expect((await bus.streamState('EV'))?.lastSeq).toBe(2);
    await waitFor(() => delivered.length === 2);
    expect(delivered).toEqual([0, 2]);
    expect(journalPayloads(journalFile).map((p) => p.i)).toEqual([0, 2]);
  });

  it('writes appends still waiting for their turn when the bus closes', async () => {
    const { bus, journalDir, journalFile } = await openBus();
    const pending = bus.publish('ev.0', { i: 7 });
    await bus.close();
    await pending;
    expect(journalPayloads(journalFile).map((p) => p.i)).toEqual([7]);
    const reopened = new LocalBus<UntypedSubjects>({ journalDir });
    cleanups.push(() => reopened.close());
    expect((await reopened.streamState('EV'))?.lastSeq).toBe(1);
  });
});
