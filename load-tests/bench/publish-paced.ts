import { collectedEventShard, collectedSubject, type Bus } from '@sightline/bus';
import type { CollectedMessage } from './ingest-traffic.js';

/** Milliseconds on a clock every thread of the process shares (performance.now() is per thread). */
export const sharedClockMs = (): number => performance.timeOrigin + performance.now();

/**
 * Publishes the collected events as the gateway does: each to its visitor's shard,
 * many in flight at once (`window`), at `ratePerSecond` from `from` (a sharedClockMs
 * time) or as fast as they are taken. `times[i]` is when event i was handed to the bus.
 */
export async function publishCollected(
  bus: Bus,
  messages: readonly CollectedMessage[],
  options: { shards: number; from: number; ratePerSecond?: number; window: number },
): Promise<Float64Array> {
  const count = messages.length;
  const publish = (i: number): Promise<void> => bus.publish(collectedSubject(collectedEventShard(messages[i]!, options.shards)), messages[i]!);
  const times = new Float64Array(count);
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < count; i += 1) {
    if (options.ratePerSecond) {
      const due = options.from + (i * 1000) / options.ratePerSecond;
      const wait = due - sharedClockMs();
      if (wait > 4) await new Promise((r) => setTimeout(r, wait));
    }
    times[i] = sharedClockMs();
    const p = publish(i).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= options.window) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return times;
}
