/**
 * TEST SUPPORT (`@sightline/bus/testing`), not shipped. The Bus contract, written once and run against every adapter (see
 * nats-bus.test.ts and local-bus.test.ts). Each test makes its own stream with a
 * unique name and subject prefix, so runs and tests never see each other's messages.
 */
import { uniqueName } from '@sightline/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bus as ProductBus, DeliveredMessage, Subscription, UntypedSubjects } from '../bus.js';
import { NoStreamForSubjectError, StreamNotFoundError, WorkQueueConflictError } from '../bus-errors.js';
import type { BusLogger } from '../bus-logger.js';

/** The suite publishes its own throwaway subjects: the bus under test is untyped. */
export type Bus = ProductBus<UntypedSubjects>;

export interface BusContractTarget {
  /** Opens a bus; opening again after close() sees the same durable state (server, journal). */
  open(options?: { logger?: BusLogger; maxAckPending?: number }): Promise<Bus>;
  /** A second, independent connection for broadcast fan-out (the same bus when there is only one process). */
  openPeer(bus: Bus): Promise<{ bus: Bus; close(): Promise<void> }>;
  /** Deletes the streams the suite created. */
  cleanup(streamNames: string[]): Promise<void>;
  /** Whether progress survives close + open (false for a memory-only bus). */
  persistent: boolean;
}

export interface BusContractOptions {
  skip?: boolean;
}

/** Short ack waits keep the suite quick; long enough for a loaded CI machine. */
const ACK_WAIT_MS = 600;

export function describeBusContract(label: string, target: () => BusContractTarget, options: BusContractOptions = {}): void {
  describe.skipIf(options.skip ?? false)(`Bus contract: ${label}`, () => {
    const createdStreams: string[] = [];
    // Durability across reopen is not part of a memory-only bus's contract: the test is
    // not defined for it at all (rather than shown as skipped).
    const itWhenPersistent = target().persistent ? it : (..._args: Parameters<typeof it>) => {};

    afterAll(async () => {
      if (!options.skip) await target().cleanup(createdStreams);
    });

    /** A new stream capturing `<prefix>.>`; returns its name and the prefix. */
    async function freshStream(bus: Bus): Promise<{ stream: string; prefix: string }> {
      const stream = uniqueName('BUS');
      const prefix = uniqueName('t');
      await bus.ensureStreams([{ name: stream, subjects: [`${prefix}.>`] }]);
      createdStreams.push(stream);
      return { stream, prefix };
    }

    async function withBus(fn: (bus: Bus) => Promise<void>, logger?: BusLogger): Promise<void> {
      const bus = await target().open(logger ? { logger } : {});
      try {
        await fn(bus);
      } finally {
        await bus.close();
      }
    }

    it('delivers a published message with subject, data and deliveryCount 1', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const got: DeliveredMessage<{ n: number }>[] = [];
        await bus.consume({ stream, durable: 'reader', handler: async (m) => void got.push(m) });
        await bus.publish(`${prefix}.a`, { n: 1 });
        await waitFor(() => got.length === 1);
        expect(got[0]).toMatchObject({ subject: `${prefix}.a`, data: { n: 1 }, deliveryCount: 1 });
        expect(got[0]?.msgId).toBeUndefined();
      }));

    it('storedAt: when the stream stored the message, not when it is delivered; the same on redelivery', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const before = Date.now();
        await bus.publish(`${prefix}.a`, { n: 1 });
        const after = Date.now();
        // it waits in the stream before anyone consumes it
        await new Promise((resolve) => setTimeout(resolve, 300));
        const got: { storedAt: number; deliveredAt: number }[] = [];
        await bus.consume({
          stream,
          durable: 'reader',
          handler: async (m) => {
            got.push({ storedAt: m.storedAt, deliveredAt: Date.now() });
            if (m.deliveryCount === 1) throw new Error('once more');
          },
        });
        await waitFor(() => got.length === 2);
        // the same machine's clock (NATS: the server's), at ms resolution
        expect(got[0]!.storedAt).toBeGreaterThanOrEqual(before - 1);
        expect(got[0]!.storedAt).toBeLessThanOrEqual(after + 1);
        expect(got[0]!.deliveredAt - got[0]!.storedAt).toBeGreaterThanOrEqual(290);
        expect(got[1]!.storedAt).toBe(got[0]!.storedAt);
      }));

    it('payloadText: hands the payload as its JSON text, unparsed; redelivered the same', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const got: DeliveredMessage<unknown>[] = [];
        await bus.consume({
          stream,
          durable: 'text',
          payloadText: true,
          handler: async (m) => {
            got.push(m);
            if (m.deliveryCount === 1) throw new Error('once more');
          },
        });
        await bus.publish(`${prefix}.a`, { n: 1, s: 'a "quoted", comma' });
        await waitFor(() => got.length === 2);
        for (const m of got) expect(typeof m.data).toBe('string');
        expect(JSON.parse(got[0]!.data as string)).toEqual({ n: 1, s: 'a "quoted", comma' });
        expect(got[1]).toMatchObject({ data: got[0]!.data, deliveryCount: 2 });
      }));

    it('delivers first deliveries in publish order', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const seen: number[] = [];
        await bus.consume({ stream, durable: 'ordered', handler: async (m) => void seen.push(m.data) });
        for (let i = 0; i < 30; i++) await bus.publish(`${prefix}.a`, i);
        await waitFor(() => seen.length === 30);
        expect(seen).toEqual([...Array(30).keys()]);
      }));

    it('only delivers messages matching filterSubject', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const seen: string[] = [];
        await bus.consume({ stream, durable: 'filtered', filterSubject: `${prefix}.keep.*`, handler: async (m) => void seen.push(m.subject) });
        await bus.publish(`${prefix}.drop`, 1);
        await bus.publish(`${prefix}.keep.x`, 2);
        await bus.publish(`${prefix}.keep.x.y`, 3);
        await bus.publish(`${prefix}.keep.z`, 4);
        await waitFor(() => seen.length === 2);
        await sleep(200);
        expect(seen).toEqual([`${prefix}.keep.x`, `${prefix}.keep.z`]);
      }));

    it('redelivers with deliveryCount 2 when the handler throws', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const counts: number[] = [];
        await bus.consume({
          stream,
          durable: 'flaky',
          ackWaitMs: ACK_WAIT_MS * 5,
          handler: async (m) => {
            counts.push(m.deliveryCount);
            if (m.deliveryCount === 1) throw new Error('transient');
          },
        });
        await bus.publish(`${prefix}.a`, 'x');
        await waitFor(() => counts.length === 2);
        await sleep(200);
        expect(counts).toEqual([1, 2]);
      }));

    it('gives each message its stream sequence, the same on its redelivery', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const seen: Array<{ data: string; count: number; seq: number | undefined }> = [];
        await bus.consume({
          stream,
          durable: 'seqs',
          ackWaitMs: ACK_WAIT_MS * 5,
          handler: async (m) => {
            seen.push({ data: m.data as string, count: m.deliveryCount, seq: m.streamSeq });
            if (m.data === 'x' && m.deliveryCount === 1) throw new Error('transient');
          },
        });
        await bus.publish(`${prefix}.a`, 'x');
        await bus.publish(`${prefix}.a`, 'y');
        await waitFor(() => seen.length === 3);
        const x = seen.filter((s) => s.data === 'x');
        const y = seen.find((s) => s.data === 'y')!;
        expect(x.map((s) => s.count)).toEqual([1, 2]);
        expect(x[0]!.seq).toBeGreaterThan(0);
        expect(x[1]!.seq).toBe(x[0]!.seq);
        expect(y.seq).toBe(x[0]!.seq! + 1);
      }));

    it('redelivers after the delay given to nak()', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const at: Array<{ count: number; t: number }> = [];
        await bus.consume({
          stream,
          durable: 'naker',
          ackWaitMs: ACK_WAIT_MS * 5,
          handler: async (m) => {
            at.push({ count: m.deliveryCount, t: Date.now() });
            if (m.deliveryCount === 1) await m.nak(400);
          },
        });
        await bus.publish(`${prefix}.a`, 'x');
        await waitFor(() => at.length === 2);
        expect(at.map((a) => a.count)).toEqual([1, 2]);
        expect((at[1]?.t ?? 0) - (at[0]?.t ?? 0)).toBeGreaterThanOrEqual(350);
      }));

    it('redelivers a message whose handler hangs past the ack wait', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const hang = deferred();
        const at: Array<{ count: number; t: number }> = [];
        await bus.consume({
          stream,
          durable: 'hung',
          ackWaitMs: ACK_WAIT_MS,
          handler: async (m) => {
            at.push({ count: m.deliveryCount, t: Date.now() });
            if (m.deliveryCount === 1) await hang.promise;
          },
        });
        await bus.publish(`${prefix}.a`, 'x');
        try {
          await waitFor(() => at.length === 2);
          expect(at.map((a) => a.count)).toEqual([1, 2]);
          expect((at[1]?.t ?? 0) - (at[0]?.t ?? 0)).toBeGreaterThanOrEqual(ACK_WAIT_MS - 100);
        } finally {
          hang.resolve();
        }
      }));

    it('stops redelivering after maxDeliver and logs the drop once', async () => {
      const logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
      const logger: BusLogger = (level, message, fields) => void logs.push({ level, message, ...(fields ? { fields } : {}) });
      await withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const counts: number[] = [];
        await bus.consume({
          stream,
          durable: 'doomed',
          ackWaitMs: ACK_WAIT_MS,
          maxDeliver: 2,
          handler: async (m) => {
            counts.push(m.deliveryCount);
            throw new Error('always fails');
          },
        });
        await bus.publish(`${prefix}.a`, 'poison');
        await waitFor(() => counts.length === 2);
        await sleep(ACK_WAIT_MS * 2);
        expect(counts).toEqual([1, 2]);
        const drops = logs.filter((l) => l.message.includes('dropped'));
        expect(drops).toHaveLength(1);
        expect(drops[0]).toMatchObject({ level: 'warn', fields: { durable: 'doomed', deliveries: 2 } });
      }, logger);
    });

    it('splits messages between consumers sharing a durable, without duplicates', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const byConsumer: Record<'a' | 'b', number[]> = { a: [], b: [] };
        for (const who of ['a', 'b'] as const) {
          await bus.consume({
            stream,
            durable: 'shared',
            handler: async (m) => {
              byConsumer[who].push(m.data);
              await sleep(5);
            },
          });
        }
        const total = 40;
        for (let i = 0; i < total; i++) await bus.publish(`${prefix}.a`, i);
        await waitFor(() => byConsumer.a.length + byConsumer.b.length >= total);
        await sleep(300);
        const all = [...byConsumer.a, ...byConsumer.b].sort((x, y) => x - y);
        expect(all).toEqual([...Array(total).keys()]);
        expect(byConsumer.a.length).toBeGreaterThan(0);
        expect(byConsumer.b.length).toBeGreaterThan(0);
      }));

    it('gives every message to each of two different durables', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const seen: Record<string, number[]> = { first: [], second: [] };
        for (const durable of ['first', 'second']) {
          await bus.consume({ stream, durable, handler: async (m) => void seen[durable]?.push(m.data) });
        }
        for (let i = 0; i < 10; i++) await bus.publish(`${prefix}.a`, i);
        await waitFor(() => seen.first?.length === 10 && seen.second?.length === 10);
        expect(seen.first).toEqual([...Array(10).keys()]);
        expect(seen.second).toEqual([...Array(10).keys()]);
      }));

    it('drops a publish whose msgId was already seen', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const got: DeliveredMessage[] = [];
        await bus.consume({ stream, durable: 'dedupe', handler: async (m) => void got.push(m) });
        await bus.publish(`${prefix}.a`, 'first', { msgId: 'id-1' });
        await bus.publish(`${prefix}.a`, 'again', { msgId: 'id-1' });
        await bus.publish(`${prefix}.a`, 'other', { msgId: 'id-2' });
        await waitFor(() => got.length === 2);
        await sleep(200);
        expect(got.map((m) => [m.data, m.msgId])).toEqual([
          ['first', 'id-1'],
          ['other', 'id-2'],
        ]);
      }));

    it('rejects a publish to a subject no stream captures', () =>
      withBus(async (bus) => {
        await expect(bus.publish(`${uniqueName('nowhere')}.x`, 1)).rejects.toBeInstanceOf(NoStreamForSubjectError);
      }));

    it('rejects consume on a stream that does not exist', () =>
      withBus(async (bus) => {
        await expect(bus.consume({ stream: uniqueName('MISSING'), durable: 'd', handler: async () => {} })).rejects.toBeInstanceOf(StreamNotFoundError);
      }));

    it('broadcasts to every matching subscriber, on every connection', () =>
      withBus(async (bus) => {
        const prefix = uniqueName('b');
        const peer = await target().openPeer(bus);
        try {
          const got: string[] = [];
          await bus.subscribe(`${prefix}.revoked`, (d) => void got.push(`exact:${d.key}`));
          await bus.subscribe(`${prefix}.*`, (d, subject) => void got.push(`wild:${d.key}:${subject}`));
          await peer.bus.subscribe(`${prefix}.>`, (d) => void got.push(`peer:${d.key}`));
          await bus.subscribe(`${prefix}.other`, () => void got.push('wrong'));
          await bus.broadcast(`${prefix}.revoked`, { key: 'k1' });
          await waitFor(() => got.length >= 3);
          await sleep(100);
          expect(got.sort()).toEqual(['exact:k1', 'peer:k1', `wild:k1:${prefix}.revoked`]);
        } finally {
          await peer.close();
        }
      }));

    it('stop() lets the running handler finish, then delivers nothing more', () =>
      withBus(async (bus) => {
        const { stream, prefix } = await freshStream(bus);
        const events: string[] = [];
        const sub: Subscription = await bus.consume({
          stream,
          durable: 'stoppable',
          handler: async (m) => {
            events.push(`start:${m.data}`);
            await sleep(200);
            events.push(`end:${m.data}`);
          },
        });
        await bus.publish(`${prefix}.a`, 1);
        await waitFor(() => events.includes('start:1'));
        await sub.stop();
        expect(events).toEqual(['start:1', 'end:1']);
        await bus.publish(`${prefix}.a`, 2);
        await sleep(500);
        expect(events).toEqual(['start:1', 'end:1']);
      }));

    it(
      "holds as many unacked messages as each consumer's maxAckPending (2000 and 10), beyond the bus default",
      () =>
        withBus(async (bus) => {
          const { stream, prefix } = await freshStream(bus);
          const gate = deferred();
          const firsts: Record<'wide' | 'narrow', number> = { wide: 0, narrow: 0 };
          const done: Record<'wide' | 'narrow', number> = { wide: 0, narrow: 0 };
          for (const [durable, maxAckPending] of [
            ['wide', 2000],
            ['narrow', 10],
          ] as const) {
            await bus.consume({
              stream,
              durable,
              maxAckPending,
              ackWaitMs: 60_000,
              handler: async (m) => {
                if (m.deliveryCount === 1) firsts[durable] += 1;
                await gate.promise; // acks only after the "batch write"
                done[durable] += 1;
              },
            });
          }
          const total = 2100;
          for (let i = 0; i < total; i += 100) {
            await Promise.all(Array.from({ length: Math.min(100, total - i) }, (_, j) => bus.publish(`${prefix}.a`, i + j)));
          }
          try {
            await waitFor(() => firsts.wide === 2000 && firsts.narrow === 10, 30_000);
            await sleep(500);
            // no more than the limit is ever out, and the limit is reached (not the bus's 512)
            expect(firsts).toEqual({ wide: 2000, narrow: 10 });
          } finally {
            gate.resolve();
          }
          await waitFor(() => done.wide === total && done.narrow === total, 30_000);
          expect(firsts).toEqual({ wide: total, narrow: total });
        }),
      90_000,
    );

    it('work-queue stream: keeps messages until their durable acks them, then removes them', () =>
      withBus(async (bus) => {
        const stream = uniqueName('WQ');
        const prefix = uniqueName('wq');
        await bus.ensureStreams([{ name: stream, subjects: [`${prefix}.>`], retention: 'workqueue', maxAgeMs: 3_600_000 }]);
        createdStreams.push(stream);
        // Published before any consumer exists: kept for the durable created later.
        for (const n of [1, 2, 3]) await bus.publish(`${prefix}.a`, n);
        expect(await bus.streamState(stream)).toMatchObject({ messages: 3, retention: 'workqueue' });
        const hold = deferred();
        const seen: number[] = [];
        await bus.consume({
          stream,
          durable: 'ingest',
          handler: async (m) => {
            seen.push(m.data);
            if (m.data === 3) await hold.promise;
          },
        });
        await waitFor(() => seen.length === 3);
        // 1 and 2 acked and gone; 3 still unacked, still stored
        await waitFor(async () => (await bus.streamState(stream))?.messages === 1);
        hold.resolve();
        await waitFor(async () => (await bus.streamState(stream))?.messages === 0);
        expect(seen).toEqual([1, 2, 3]);
      }));

    it("work-queue stream: refuses a durable whose filter overlaps another durable's", () =>
      withBus(async (bus) => {
        const stream = uniqueName('WQX');
        const prefix = uniqueName('wqx');
        await bus.ensureStreams([{ name: stream, subjects: [`${prefix}.>`], retention: 'workqueue' }]);
        createdStreams.push(stream);
        const handler = async () => {};
        await bus.consume({ stream, durable: 'shard-0', filterSubject: `${prefix}.0`, handler });
        await bus.consume({ stream, durable: 'shard-1', filterSubject: `${prefix}.1`, handler });
        // the same durable again (another replica, or a restart) is fine
        await bus.consume({ stream, durable: 'shard-0', filterSubject: `${prefix}.0`, handler });
        await expect(bus.consume({ stream, durable: 'all', filterSubject: `${prefix}.*`, handler })).rejects.toBeInstanceOf(WorkQueueConflictError);
        await expect(bus.consume({ stream, durable: 'unfiltered', handler })).rejects.toBeInstanceOf(WorkQueueConflictError);
      }));

    it('supersedes: deletes an empty predecessor, narrows one that still holds messages', () =>
      withBus(async (bus) => {
        const prefix = uniqueName('sup');
        const [emptyOld, fullOld, newA, newB] = [uniqueName('OLDE'), uniqueName('OLDF'), uniqueName('NEWA'), uniqueName('NEWB')];
        createdStreams.push(emptyOld, fullOld, newA, newB);
        await bus.ensureStreams([
          { name: emptyOld, subjects: [`${prefix}.e.>`] },
          { name: fullOld, subjects: [`${prefix}.f.>`] },
        ]);
        await bus.publish(`${prefix}.f.collected`, 'old-1');
        await bus.publish(`${prefix}.f.collected`, 'old-2');

        await bus.ensureStreams([
          { name: newA, subjects: [`${prefix}.e.collected.*`], retention: 'workqueue', supersedes: { name: emptyOld, narrowTo: [`${prefix}.e.collected`] } },
          { name: newB, subjects: [`${prefix}.f.collected.*`], retention: 'workqueue', supersedes: { name: fullOld, narrowTo: [`${prefix}.f.collected`] } },
        ]);
        expect(await bus.streamState(emptyOld)).toBeUndefined();
        expect(await bus.streamState(fullOld)).toMatchObject({ messages: 2, retention: 'limits' });
        await bus.publish(`${prefix}.f.collected.3`, 'new');
        expect(await bus.streamState(newB)).toMatchObject({ messages: 1, retention: 'workqueue' });
        // the old messages stay readable through the narrowed predecessor
        const old: string[] = [];
        await bus.consume({ stream: fullOld, durable: 'drain', handler: async (m) => void old.push(m.data) });
        await waitFor(() => old.length === 2);
        expect(old).toEqual(['old-1', 'old-2']);
        // idempotent
        await bus.ensureStreams([
          { name: newB, subjects: [`${prefix}.f.collected.*`], retention: 'workqueue', supersedes: { name: fullOld, narrowTo: [`${prefix}.f.collected`] } },
        ]);
      }));

    itWhenPersistent('keeps durable progress across close and reopen', async () => {
      const first = await target().open();
      let stream = '';
      let prefix = '';
      try {
        ({ stream, prefix } = await freshStream(first));
        const seen: number[] = [];
        await first.consume({
          stream,
          durable: 'resumer',
          ackWaitMs: ACK_WAIT_MS * 5,
          handler: async (m) => {
            seen.push(m.data);
            if (m.data === 3) throw new Error('not this one yet');
          },
        });
        for (const n of [1, 2, 3]) await first.publish(`${prefix}.a`, n);
        await waitFor(() => seen.includes(3));
      } finally {
        await first.close();
      }

      const second = await target().open();
      try {
        // Published while no consumer runs: held for the durable.
        await second.publish(`${prefix}.a`, 4);
        await second.publish(`${prefix}.a`, 5);
        const got: Array<{ n: number; count: number }> = [];
        await second.consume({
          stream,
          durable: 'resumer',
          ackWaitMs: ACK_WAIT_MS * 5,
          handler: async (m) => void got.push({ n: m.data, count: m.deliveryCount }),
        });
        await waitFor(() => got.length >= 3);
        await sleep(400);
        expect(got.map((g) => g.n).sort()).toEqual([3, 4, 5]);
        expect(got.find((g) => g.n === 3)?.count).toBeGreaterThanOrEqual(2);
        expect(got.find((g) => g.n === 4)?.count).toBe(1);
      } finally {
        await second.close();
      }
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition`; generous default so a loaded CI machine does not fail a correct bus. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
