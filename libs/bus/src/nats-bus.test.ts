import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { backendGate, uniqueName } from '@sightline/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { describeBusContract } from './testing/index.js';
import type { Bus } from './bus.js';
import { connectNatsBus, NatsBus } from './nats-bus.js';
import type { UntypedSubjects } from './bus.js';

const gate = await backendGate('nats');

describeBusContract(
  'NatsBus',
  () => ({
    persistent: true,
    open: async (options) => connectNatsBus<UntypedSubjects>(gate.url, { name: 'bus-contract', ...options }),
    // A second connection: proves fan-out crosses processes, not just subscriptions.
    openPeer: async () => {
      const peer = await connectNatsBus<UntypedSubjects>(gate.url, { name: 'bus-contract-peer' });
      return { bus: peer, close: () => peer.close() };
    },
    cleanup: async (streams) => {
      const bus = await connectNatsBus<UntypedSubjects>(gate.url);
      try {
        const jsm = await jetstreamManager(bus.connection);
        for (const stream of streams) await jsm.streams.delete(stream).catch(() => false);
      } finally {
        await bus.close();
      }
    },
  }),
  { skip: !gate.available },
);

describe.skipIf(!gate.available)('NatsBus specifics', () => {
  const opened: Bus[] = [];
  afterAll(async () => {
    for (const bus of opened) await bus.close();
  });

  it('answers ping and reports its kind', async () => {
    const bus = await connectNatsBus<UntypedSubjects>(gate.url);
    opened.push(bus);
    expect(bus).toBeInstanceOf(NatsBus);
    expect(bus.kind).toBe('nats');
    await expect(bus.ping()).resolves.toBeUndefined();
  });

  it('creates file-backed limits-retention streams and updates them in place', async () => {
    const bus = await connectNatsBus<UntypedSubjects>(gate.url);
    opened.push(bus);
    const jsm = await jetstreamManager(bus.connection);
    const name = uniqueName('ENSURE');
    const prefix = uniqueName('e');
    try {
      await bus.ensureStreams([{ name, subjects: [`${prefix}.>`] }]);
      await bus.ensureStreams([{ name, subjects: [`${prefix}.>`] }]);
      let info = await jsm.streams.info(name);
      expect(info.config).toMatchObject({ retention: RetentionPolicy.Limits, storage: StorageType.File, max_age: 0 });
      const wq = uniqueName('ENSUREWQ');
      await bus.ensureStreams([{ name: wq, subjects: [`${prefix}wq.>`], retention: 'workqueue' }]);
      expect((await jsm.streams.info(wq)).config).toMatchObject({ retention: RetentionPolicy.Workqueue, storage: StorageType.File });
      await jsm.streams.delete(wq);

      await bus.ensureStreams([{ name, subjects: [`${prefix}.>`, `${prefix}2.>`], maxAgeMs: 60_000 }]);
      info = await jsm.streams.info(name);
      expect(info.config.subjects).toEqual([`${prefix}.>`, `${prefix}2.>`]);
      expect(info.config.max_age).toBe(nanos(60_000));
      // The server insists the dedupe window fits inside max age.
      expect(info.config.duplicate_window).toBe(nanos(60_000));
    } finally {
      await jsm.streams.delete(name).catch(() => false);
    }
  });

  it('keeps messages published before any consumer exists, for a durable created later', async () => {
    const bus = await connectNatsBus<UntypedSubjects>(gate.url);
    opened.push(bus);
    const jsm = await jetstreamManager(bus.connection);
    const name = uniqueName('EARLY');
    const prefix = uniqueName('early');
    try {
      await bus.ensureStreams([{ name, subjects: [`${prefix}.>`], maxAgeMs: 60_000 }]);
      for (const n of [1, 2, 3]) await bus.publish(`${prefix}.x`, { n });
      const seen: number[] = [];
      const done = new Promise<void>((resolve) => {
        void bus.consume({
          stream: name,
          durable: uniqueName('late'),
          handler: async (msg) => {
            seen.push(msg.data.n);
            if (seen.length === 3) resolve();
          },
        });
      });
      await done;
      expect(seen).toEqual([1, 2, 3]);
    } finally {
      await jsm.streams.delete(name).catch(() => false);
    }
  });

  it('rejects use after close', async () => {
    const bus = await connectNatsBus<UntypedSubjects>(gate.url);
    await bus.close();
    await expect(bus.publish('x.y', 1)).rejects.toThrow(/closed/);
  });
});
