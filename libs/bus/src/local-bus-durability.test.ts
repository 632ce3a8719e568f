import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@sightline/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, waitFor } from './testing/index.js';
import type { BusLogger } from './bus-logger.js';
import { LocalBus } from './local-bus.js';
import type { UntypedSubjects } from './bus.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tempJournal(): Promise<string> {
  const dir = await makeTempDir('sightline-bus-journal-');
  cleanups.push(dir.remove);
  return dir.path;
}

/** Opens a LocalBus and consumes `durable` until `settle` returns true; closes it. */
async function drain(
  journalDir: string,
  durable: string,
  handle: (data: { i: number }, deliveryCount: number, msg: { nak(ms?: number): Promise<void> }) => Promise<void>,
  settle: () => boolean,
  quietMs = 300,
): Promise<void> {
  const bus = new LocalBus<UntypedSubjects>({ journalDir });
  try {
    await bus.consume({ stream: 'CRASH', durable, handler: (m) => handle(m.data, m.deliveryCount, m) });
    await waitFor(settle, 10_000);
    await sleep(quietMs); // nothing more may arrive
  } finally {
    await bus.close();
  }
}

describe('LocalBus durability', () => {
  it('delivers every message published before a SIGKILL, then only the unacked ones', async () => {
    const journalDir = await tempJournal();
    const count = 200;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'test-fixtures', 'publish-then-hang.ts'), journalDir, 'CRASH', 'crash.tracked', String(count)],
      { cwd: path.resolve(here, '..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    try {
      await waitFor(() => stdout.includes(`published ${count}`), 20_000);
    } catch (err) {
      child.kill('SIGKILL');
      throw new Error(`child never finished publishing: ${String(err)}\n${stderr}`);
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // Run 1 after the crash: everything is there. Ack the even ones, hold back the odd.
    const firstRun = new Map<number, number>();
    await drain(
      journalDir,
      'ingest',
      async (data, deliveryCount, msg) => {
        firstRun.set(data.i, deliveryCount);
        if (data.i % 2 === 1) await msg.nak(60_000);
      },
      () => firstRun.size === count,
    );
    expect([...firstRun.keys()].sort((a, b) => a - b)).toEqual([...Array(count).keys()]);
    // The child's deliveries were recorded before its handlers ran.
    expect(new Set(firstRun.values())).toEqual(new Set([2]));

    // Run 2: only the unacked half comes back.
    const secondRun = new Map<number, number>();
    await drain(
      journalDir,
      'ingest',
      async (data, deliveryCount) => void secondRun.set(data.i, deliveryCount),
      () => secondRun.size === count / 2,
    );
    expect([...secondRun.keys()].sort((a, b) => a - b)).toEqual([...Array(count).keys()].filter((i) => i % 2 === 1));
    expect(new Set(secondRun.values())).toEqual(new Set([3]));

    // Run 3: all acked now.
    const thirdRun: number[] = [];
    await drain(
      journalDir,
      'ingest',
      async (data) => void thirdRun.push(data.i),
      () => true,
      300,
    );
    expect(thirdRun).toEqual([]);
  }, 60_000);

  it('gives up a message that keeps taking the process down, across restarts', async () => {
    const journalDir = await tempJournal();
    const logs: string[] = [];
    const logger: BusLogger = (_level, message) => void logs.push(message);
    const setup = new LocalBus<UntypedSubjects>({ journalDir });
    await setup.ensureStreams([{ name: 'POISON', subjects: ['poison.>'] }]);
    await setup.publish('poison.a', 'boom');
    await setup.close();

    // Each run the handler never returns, as if the process died; close() gives up
    // waiting after the ack wait. The delivery was recorded all the same.
    const counts: number[] = [];
    for (let run = 0; run < 3; run++) {
      const bus = new LocalBus<UntypedSubjects>({ journalDir, logger });
      await bus.consume({
        stream: 'POISON',
        durable: 'worker',
        ackWaitMs: 1_000,
        maxDeliver: 2,
        handler: (m) => {
          counts.push(m.deliveryCount);
          return new Promise<void>(() => {});
        },
      });
      await sleep(100);
      await bus.close();
    }
    expect(counts).toEqual([1, 2]);
    expect(logs.filter((m) => m.includes('dropped'))).toHaveLength(1);
  }, 30_000);

  it('repairs a torn last journal line and keeps every complete message', async () => {
    const journalDir = await tempJournal();
    const logs: string[] = [];
    const first = new LocalBus<UntypedSubjects>({ journalDir });
    await first.ensureStreams([{ name: 'CRASH', subjects: ['crash.>'] }]);
    for (let i = 0; i < 3; i++) await first.publish('crash.a', { i });
    await first.close();
    // What a write interrupted mid-line leaves behind.
    appendFileSync(path.join(journalDir, 'streams', 'CRASH', 'journal.log'), 'M\t{"seq":4,"ts":1,"subj');

    const bus = new LocalBus<UntypedSubjects>({ journalDir, logger: (_l, message) => void logs.push(message) });
    try {
      await bus.publish('crash.a', { i: 3 });
      const seen: number[] = [];
      await bus.consume({ stream: 'CRASH', durable: 'reader', handler: async (m) => void seen.push(m.data.i) });
      await waitFor(() => seen.length === 4);
      expect(seen).toEqual([0, 1, 2, 3]);
      expect(logs.some((m) => m.includes('repaired'))).toBe(true);
    } finally {
      await bus.close();
    }
  });

  it('compacts a journal once every durable has acked its prefix, without reusing sequence numbers', async () => {
    const journalDir = await tempJournal();
    const threshold = 8 * 1024;
    const payload = 'x'.repeat(100);
    const journalFile = path.join(journalDir, 'streams', 'COMPACT', 'journal.log');

    const bus = new LocalBus<UntypedSubjects>({ journalDir, compactThresholdBytes: threshold });
    const fast: number[] = [];
    let releaseSlow = () => {};
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    try {
      await bus.ensureStreams([{ name: 'COMPACT', subjects: ['compact.>'] }]);
      await bus.consume({ stream: 'COMPACT', durable: 'fast', handler: async (m) => void fast.push(m.data.i) });
      // A second durable still working on everything holds the whole journal.
      await bus.consume({ stream: 'COMPACT', durable: 'slow', handler: () => slowGate });
      for (let i = 0; i < 200; i++) await bus.publish('compact.a', { i, payload });
      await waitFor(() => fast.length === 200);
      await sleep(50);
      const grown = bus.streamStats('COMPACT');
      expect(grown?.journalBytes).toBeGreaterThan(threshold);
      expect(grown?.retained).toBe(200);

      releaseSlow();
      await waitFor(() => (bus.streamStats('COMPACT')?.journalBytes ?? Infinity) < threshold);
      expect(readFileSync(journalFile, 'utf8')).toMatch(/^B\t200\n/);
      expect(bus.streamStats('COMPACT')).toMatchObject({ firstSeq: 201, lastSeq: 200, retained: 0 });
    } finally {
      await bus.close();
    }

    // After reopening, numbering continues and only new messages are delivered.
    const reopened = new LocalBus<UntypedSubjects>({ journalDir, compactThresholdBytes: threshold });
    try {
      await reopened.publish('compact.a', { i: 200, payload });
      expect(reopened.streamStats('COMPACT')).toMatchObject({ lastSeq: 201, retained: 1 });
      const seen: number[] = [];
      await reopened.consume({ stream: 'COMPACT', durable: 'fast', handler: async (m) => void seen.push(m.data.i) });
      await waitFor(() => seen.length === 1);
      await sleep(200);
      expect(seen).toEqual([200]);
    } finally {
      await reopened.close();
    }
  });
});
