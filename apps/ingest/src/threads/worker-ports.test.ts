import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { site } from '../test-support/fixture-ports.js';
import { MainThread } from './main-thread.js';
import type { FromWorker, ToWorker, WorkerCall } from './worker-messages.js';
import { BatchSiteResolver, RemoteSalts } from './worker-ports.js';

/** A worker's MainThread over a real MessageChannel, and the other end answering its calls as `answer` says. */
function channel(answer: (call: WorkerCall) => unknown): { main: MainThread; calls: WorkerCall[]; close(): void } {
  const { port1, port2 } = new MessageChannel();
  const main = new MainThread(port1 as unknown as MessagePort);
  const calls: WorkerCall[] = [];
  port1.on('message', (message: ToWorker) => {
    if (message.t === 'reply') main.settle(message);
  });
  port2.on('message', (message: FromWorker) => {
    if (message.t !== 'call') return;
    calls.push(message.call);
    try {
      port2.postMessage({ t: 'reply', id: message.id, ok: true, value: answer(message.call) } satisfies ToWorker);
    } catch (error) {
      port2.postMessage({ t: 'reply', id: message.id, ok: false, error: (error as Error).message } satisfies ToWorker);
    }
  });
  return { main, calls, close: () => (port1.close(), port2.close()) };
}

let open: { close(): void } | undefined;
afterEach(() => open?.close());

describe('BatchSiteResolver', () => {
  it('answers from the batch’s sites, an unknown key included, and asks the main thread only for a key the batch lacks', async () => {
    const known = site({ site_id: 7 });
    const other = site({ site_id: 8 });
    const link = (open = channel((call) => (call.op === 'site' && call.key === 'otherkey0001' ? other : null)));
    const sites = new BatchSiteResolver(link.main);
    sites.use([
      ['knownkey0001', known],
      ['goneskey0001', null],
    ]);
    expect(await sites.resolve('knownkey0001')).toEqual(known);
    expect(await sites.resolve('goneskey0001')).toBeNull();
    expect(link.calls).toEqual([]);
    expect(await sites.resolve('otherkey0001')).toEqual(other);
    expect(link.calls).toEqual([{ op: 'site', key: 'otherkey0001' }]);
    // the next batch replaces the sites: what the main thread resolved then wins
    sites.use([['knownkey0001', null]]);
    expect(await sites.resolve('knownkey0001')).toBeNull();
  });
});

describe('RemoteSalts', () => {
  it('asks the main thread once per day, hands a Buffer back, and asks again after 00:00 UTC (the main thread rotates)', async () => {
    let now = Date.parse('2026-03-01T23:59:00Z');
    let served = 0;
    const link = (open = channel((call) => (call.op === 'salt' ? (call.day < '2026-02-28' ? null : new Uint8Array(32).fill((served += 1))) : undefined)));
    const salts = new RemoteSalts(link.main, () => new Date(now));
    const first = await salts.forDay('2026-03-01');
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(first![0]).toBe(1);
    expect((await salts.forDay('2026-03-01'))![0]).toBe(1);
    expect(await salts.forDay('2026-02-20')).toBeNull();
    expect(link.calls.filter((c) => c.op === 'salt')).toHaveLength(2);
    now = Date.parse('2026-03-02T00:00:01Z');
    // asked again: the main thread's answer of the new day (its second salt served)
    expect((await salts.forDay('2026-03-01'))![0]).toBe(2);
    expect(link.calls.filter((c) => c.op === 'salt')).toHaveLength(3);
  });

  it('asks again after a failed ask (the main thread’s database was away)', async () => {
    let failing = true;
    const link = (open = channel((call) => {
      if (call.op === 'salt' && failing) throw new Error('database unavailable');
      return new Uint8Array(32).fill(9);
    }));
    const salts = new RemoteSalts(link.main, () => new Date('2026-03-01T12:00:00Z'));
    await expect(salts.forDay('2026-03-01')).rejects.toThrow('database unavailable');
    failing = false;
    expect((await salts.forDay('2026-03-01'))![0]).toBe(9);
  });
});
