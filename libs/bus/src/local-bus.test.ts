import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, uniqueName } from '@sightline/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { describeBusContract, sleep, waitFor } from './testing/index.js';
import { LocalBus } from './local-bus.js';
import type { UntypedSubjects } from './bus.js';

const journal = await makeTempDir('sightline-bus-contract-');
afterAll(() => journal.remove());

describeBusContract('LocalBus (journal)', () => ({
  persistent: true,
  open: async (options) => new LocalBus<UntypedSubjects>({ journalDir: journal.path, ...options }),
  // One process, one bus: every subscriber lives on it.
  openPeer: async (bus) => ({ bus, close: async () => {} }),
  cleanup: async () => {},
}));

describeBusContract('LocalBus (memory)', () => ({
  persistent: false,
  open: async (options) => new LocalBus<UntypedSubjects>({ ...options }),
  openPeer: async (bus) => ({ bus, close: async () => {} }),
  cleanup: async () => {},
}));

describe('LocalBus specifics', () => {
  it('never runs a handler inside publish()', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    try {
      await bus.ensureStreams([{ name: 'S', subjects: ['s.>'] }]);
      let delivered = false;
      await bus.consume({ stream: 'S', durable: 'd', handler: async () => void (delivered = true) });
      await sleep(10);
      const pending = bus.publish('s.a', 1);
      expect(delivered).toBe(false);
      await pending;
      expect(delivered).toBe(false);
      await waitFor(() => delivered);
    } finally {
      await bus.close();
    }
  });

  it('rejects streams whose subjects overlap, like JetStream', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    try {
      await bus.ensureStreams([{ name: 'A', subjects: ['a.>'] }]);
      await expect(bus.ensureStreams([{ name: 'B', subjects: ['a.*'] }])).rejects.toThrow(/overlap/);
      await expect(bus.ensureStreams([{ name: 'A', subjects: ['a.>', 'aa.>'] }])).resolves.toBeUndefined();
    } finally {
      await bus.close();
    }
  });

  it('refuses a journal dir another LocalBus has open', async () => {
    const dir = await makeTempDir();
    const bus = new LocalBus<UntypedSubjects>({ journalDir: dir.path });
    try {
      expect(() => new LocalBus<UntypedSubjects>({ journalDir: dir.path })).toThrow(/already open/);
    } finally {
      await bus.close();
      await dir.remove();
    }
  });

  it('drops messages past maxAgeMs', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    try {
      await bus.ensureStreams([{ name: 'AGED', subjects: ['aged.>'], maxAgeMs: 200 }]);
      await bus.publish('aged.a', 1);
      await waitFor(() => bus.streamStats('AGED')?.retained === 0, 3000);
      const seen: unknown[] = [];
      await bus.consume({ stream: 'AGED', durable: 'late', handler: async (m) => void seen.push(m.data) });
      await bus.publish('aged.a', 2);
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual([2]);
    } finally {
      await bus.close();
    }
  });

  it('releases a message from memory once every durable has acked it', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    try {
      await bus.ensureStreams([{ name: 'R', subjects: ['r.>'] }]);
      await bus.publish('r.before', 0);
      // No durable yet: kept, so the first consumer still gets it.
      expect(bus.streamStats('R')?.retained).toBe(1);
      const slow = { release: () => {} };
      const slowDone = new Promise<void>((resolve) => (slow.release = resolve));
      const fast: unknown[] = [];
      await bus.consume({ stream: 'R', durable: 'fast', handler: async (m) => void fast.push(m.data) });
      await bus.consume({ stream: 'R', durable: 'slow', handler: async () => slowDone });
      await bus.publish('r.a', 1);
      await waitFor(() => fast.length === 2);
      expect(bus.streamStats('R')?.retained).toBe(2);
      slow.release();
      await waitFor(() => bus.streamStats('R')?.retained === 0);
    } finally {
      await bus.close();
    }
  });
});

describe('LocalBus work-queue journal', () => {
  it('drops an acked message from the journal file within seconds, not at the size threshold', async () => {
    const dir = await makeTempDir();
    const bus = new LocalBus<UntypedSubjects>({ journalDir: dir.path });
    try {
      await bus.ensureStreams([{ name: 'WQJ', subjects: ['wqj.>'], retention: 'workqueue' }]);
      const journalFile = path.join(dir.path, 'streams', 'WQJ', 'journal.log');
      await bus.publish('wqj.0', { ip: '203.0.113.77', ua: 'Secret-UA/1.0' });
      expect(readFileSync(journalFile, 'utf8')).toContain('203.0.113.77');
      const acked: unknown[] = [];
      await bus.consume({ stream: 'WQJ', durable: 'ingest', handler: async (m) => void acked.push(m.data) });
      await waitFor(() => acked.length === 1);
      await waitFor(() => !readFileSync(journalFile, 'utf8').includes('203.0.113.77'), 15_000);
      expect(readFileSync(journalFile, 'utf8')).not.toContain('Secret-UA');
      expect(await bus.streamState('WQJ')).toMatchObject({ messages: 0, lastSeq: 1, retention: 'workqueue' });
    } finally {
      await bus.close();
      await dir.remove();
    }
  });
});

describe('LocalBus naming', () => {
  it('rejects stream and durable names that cannot be file names', async () => {
    const bus = new LocalBus<UntypedSubjects>();
    try {
      await expect(bus.ensureStreams([{ name: '../x', subjects: ['x.>'] }])).rejects.toThrow(/invalid stream name/);
      await bus.ensureStreams([{ name: uniqueName('N'), subjects: ['n.>'] }]);
    } finally {
      await bus.close();
    }
  });
});
