import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { backendGate, uniqueName } from '@sightline/testkit';
import { afterAll, describe, expect, it, vi } from 'vitest';
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

  it('names the real cause when the server refuses a new stream (subjects overlapping another stream)', async () => {
    // Regression: the refusal used to be followed by a second info(), which threw
    // StreamNotFoundError and hid "subjects overlap" (seen on a shared server where
    // another branch had created a stream over events.collected.*).
    const bus = await connectNatsBus(gate.url);
    opened.push(bus);
    const jsm = await jetstreamManager(bus.connection);
    const owner = uniqueName('OWNER');
    const other = uniqueName('OVERLAP');
    const prefix = uniqueName('o');
    try {
      await bus.ensureStreams([{ name: owner, subjects: [`${prefix}.collected.*`] }]);
      const refused = bus.ensureStreams([{ name: other, subjects: [`${prefix}.>`] }]);
      await expect(refused).rejects.toThrow(new RegExp(`cannot create JetStream stream ${other}.*subjects overlap`));
      await expect(jsm.streams.info(other)).rejects.toThrow(/stream not found/);
    } finally {
      await jsm.streams.delete(owner).catch(() => false);
      await jsm.streams.delete(other).catch(() => false);
    }
  });

  it('lets two services create the same stream at once with different settings (the loser updates it)', async () => {
    const [a, b] = await Promise.all([connectNatsBus(gate.url), connectNatsBus(gate.url)]);
    opened.push(a, b);
    const jsm = await jetstreamManager(a.connection);
    const name = uniqueName('RACE');
    const prefix = uniqueName('r');
    try {
      await Promise.all([a.ensureStreams([{ name, subjects: [`${prefix}.>`] }]), b.ensureStreams([{ name, subjects: [`${prefix}.>`], maxAgeMs: 60_000 }])]);
      const info = await jsm.streams.info(name);
      expect(info.config.subjects).toEqual([`${prefix}.>`]);
    } finally {
      await jsm.streams.delete(name).catch(() => false);
    }
  });

  /** A stream of its own (`<prefix>.>`) for one test, deleted after it. */
  const withStream = async (bus: NatsBus<UntypedSubjects>, label: string, test: (name: string, prefix: string) => Promise<void>) => {
    const jsm = await jetstreamManager(bus.connection);
    const name = uniqueName(label.toUpperCase());
    const prefix = uniqueName(label);
    try {
      await bus.ensureStreams([{ name, subjects: [`${prefix}.>`], maxAgeMs: 60_000 }]);
      await test(name, prefix);
    } finally {
      await jsm.streams.delete(name).catch(() => false);
    }
  };

  it('keeps messages published before any consumer exists, for a durable created later', async () => {
    const bus = await connectNatsBus<UntypedSubjects>(gate.url);
    opened.push(bus);
    await withStream(bus, 'early', async (name, prefix) => {
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
    });
  });

  it('ends a message whose last delivery hangs past the ack wait, and one whose payload is not JSON, each logged once', async () => {
    const logs: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const bus = await connectNatsBus<UntypedSubjects>(gate.url, {
      logger: (_level, message, fields) => void logs.push({ message, ...(fields ? { fields } : {}) }),
    });
    opened.push(bus);
    await withStream(bus, 'ends', async (name, prefix) => {
      const deliveries: number[] = [];
      await bus.consume({
        stream: name,
        durable: uniqueName('hang'),
        ackWaitMs: 500,
        maxDeliver: 1,
        // never settles: only the consumer's own timer can end the message
        handler: (msg) => {
          deliveries.push(msg.deliveryCount);
          return new Promise<void>(() => {});
        },
      });
      await bus.publish(`${prefix}.hang`, { n: 1 });
      await jetstream(bus.connection).publish(`${prefix}.raw`, 'not json {');
      await vi.waitFor(() => expect(logs.map((l) => l.fields?.reason).sort()).toEqual(['ack wait expired', expect.stringMatching(/^payload is not JSON/)]), {
        timeout: 5000,
      });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      // the hanging handler ran once (maxDeliver 1): no redelivery, no second log line
      expect(deliveries).toEqual([1]);
      expect(logs).toHaveLength(2);
      expect(logs.every((l) => l.message === 'message dropped after its last delivery' && l.fields?.deliveries === 1)).toBe(true);
    });
  });

  it('rejects use after close', async () => {
    const bus = await connectNatsBus<UntypedSubjects>(gate.url);
    await bus.close();
    await expect(bus.publish('x.y', 1)).rejects.toThrow(/closed/);
  });
});
