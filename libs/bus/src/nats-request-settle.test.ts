import { jetstreamManager } from '@nats-io/jetstream';
import { errors, type NatsConnection } from '@nats-io/nats-core';
import { RequestOne } from '@nats-io/nats-core/internal';
import { backendGate, uniqueName } from '@sightline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UntypedSubjects } from './bus.js';
import { connectNatsBus, type NatsBus } from './nats-bus.js';
import { settleNatsRequestsWithoutError } from './nats-request-settle.js';

const gate = await backendGate('nats');

/** The connection's table of requests waiting for a reply (emptied as each one settles). */
function waitingRequests(connection: NatsConnection): number {
  return (connection as unknown as { protocol: { muxSubscriptions: { reqs: Map<string, unknown> } } }).protocol.muxSubscriptions.reqs.size;
}

describe.skipIf(!gate.available)('settleNatsRequestsWithoutError (nats.js request settling, on a real server)', () => {
  let bus: NatsBus<UntypedSubjects>;
  beforeAll(async () => {
    bus = await connectNatsBus<UntypedSubjects>(gate.url, { name: 'request-settle-test' });
  });
  afterAll(async () => {
    await bus?.close();
  });

  it('is applied to the installed nats.js (if this fails, the library changed: re-read RequestOne and update or drop the fix)', () => {
    expect(settleNatsRequestsWithoutError()).toBe(true);
    expect(RequestOne.prototype.resolver.name).toBe('settle');
  });

  it('resolves answered requests with their reply and leaves nothing waiting', async () => {
    const subject = uniqueName('settle.echo');
    const responder = bus.connection.subscribe(subject, {
      callback: (_err, msg) => {
        msg.respond(`re:${msg.string()}`);
      },
    });
    await bus.connection.flush();
    const replies = await Promise.all(Array.from({ length: 500 }, (_, i) => bus.connection.request(subject, `q${i}`, { timeout: 5_000 })));
    expect(replies.map((reply) => reply.string())).toEqual(Array.from({ length: 500 }, (_, i) => `re:q${i}`));
    expect(waitingRequests(bus.connection)).toBe(0);
    responder.unsubscribe();
  });

  it('still fails as the library does: no responders, and a timeout', async () => {
    const nobody = bus.connection.request(uniqueName('settle.nobody'), 'x', { timeout: 2_000 });
    await expect(nobody).rejects.toBeInstanceOf(errors.RequestError);
    await expect(nobody).rejects.toSatisfy((error: InstanceType<typeof errors.RequestError>) => error.isNoResponders());

    const subject = uniqueName('settle.silent');
    const silent = bus.connection.subscribe(subject, { callback: () => {} });
    await bus.connection.flush();
    await expect(bus.connection.request(subject, 'x', { timeout: 200 })).rejects.toBeInstanceOf(errors.TimeoutError);
    expect(waitingRequests(bus.connection)).toBe(0);
    silent.unsubscribe();
  });

  it('keeps JetStream publishes acknowledged (each is such a request)', async () => {
    const stream = uniqueName('SETTLE');
    const prefix = uniqueName('settle');
    await bus.ensureStreams([{ name: stream, subjects: [`${prefix}.>`] }]);
    try {
      await Promise.all(Array.from({ length: 200 }, (_, i) => bus.publish(`${prefix}.e`, { i })));
      expect((await bus.streamState(stream))?.messages).toBe(200);
      expect(waitingRequests(bus.connection)).toBe(0);
    } finally {
      await (await jetstreamManager(bus.connection)).streams.delete(stream);
    }
  });
});
