import { jetstreamManager } from '@nats-io/jetstream';
import { busConsumerAckPending, busConsumerLag, busConsumerPending, metricsRegistry, readMetricValue } from '@sightline/telemetry';
import { backendGate, uniqueName } from '@sightline/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { UntypedSubjects } from './bus.js';
import { connectNatsBus, type NatsBus } from './nats-bus.js';

const gate = await backendGate('nats');

// A stuck consumer on real JetStream, as /metrics shows it: what waits for it, what
// it holds unacked, and the age of the oldest message it has not acked — which rises
// a second per second while it is stuck and falls to 0 once it acks.
describe.skipIf(!gate.available)('NatsBus consumer backlog metrics', () => {
  let bus: NatsBus<UntypedSubjects>;
  const stream = uniqueName('BACKLOG');
  const prefix = uniqueName('backlog');
  const durable = uniqueName('stuck');

  afterAll(async () => {
    await bus?.close();
    const cleanup = await connectNatsBus(gate.url);
    await (await jetstreamManager(cleanup.connection)).streams.delete(stream).catch(() => false);
    await cleanup.close();
  });

  it('reports pending, ack-pending and the oldest unacked age of each durable, per scrape', async () => {
    bus = await connectNatsBus<UntypedSubjects>(gate.url);
    await bus.ensureStreams([{ name: stream, subjects: [`${prefix}.>`] }]);
    const series = { stream, durable };
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    let handled = 0;
    await bus.consume({ stream, durable, filterSubject: `${prefix}.a`, maxAckPending: 2, handler: async () => void (await stuck, handled++) });

    // an older message of another subject (another shard's): not this durable's, so not its lag
    await bus.publish(`${prefix}.b`, { n: 0 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const beforePublish = Date.now();
    for (let n = 1; n <= 5; n++) await bus.publish(`${prefix}.a`, { n });
    const afterPublish = Date.now();

    // two handed out (max_ack_pending), three waiting
    await expect.poll(() => readMetricValue(busConsumerAckPending, series), { timeout: 5_000 }).toBe(2);
    expect(await readMetricValue(busConsumerPending, series)).toBe(3);

    const firstAskedFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the reading's freshness
    const lag1 = await readMetricValue(busConsumerLag, series);
    const firstAskedTo = Date.now();
    // the age of the first `.a` message: published between beforePublish and afterPublish
    expect(lag1).toBeGreaterThanOrEqual((firstAskedFrom - afterPublish) / 1000 - 0.05);
    expect(lag1).toBeLessThanOrEqual((firstAskedTo - beforePublish) / 1000 + 0.05);

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const lag2 = await readMetricValue(busConsumerLag, series);
    // stuck: a second per second (1.5 s later, give or take the two readings' own time)
    expect(lag2 - lag1).toBeGreaterThan(1.3);
    expect(lag2 - lag1).toBeLessThan(2.5);

    const text = await metricsRegistry.metrics();
    expect(text).toContain(`sightline_bus_consumer_pending_messages{stream="${stream}",durable="${durable}"} 3`);
    expect(text).toContain(`sightline_bus_consumer_ack_pending_messages{stream="${stream}",durable="${durable}"} 2`);
    expect(text).toMatch(new RegExp(`sightline_bus_consumer_lag_seconds\\{stream="${stream}",durable="${durable}"\\} \\d+\\.\\d+`));

    release();
    await expect.poll(() => handled, { timeout: 5_000 }).toBe(5);
    await expect
      .poll(
        async () => [
          await readMetricValue(busConsumerPending, series),
          await readMetricValue(busConsumerAckPending, series),
          await readMetricValue(busConsumerLag, series),
        ],
        { timeout: 5_000, interval: 300 },
      )
      .toEqual([0, 0, 0]);
  });

  it('stops reporting a closed bus', async () => {
    await bus.close();
    const text = await metricsRegistry.metrics();
    expect(text).not.toContain(`durable="${durable}"`);
  });
});
