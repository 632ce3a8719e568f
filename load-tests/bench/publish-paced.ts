/** Milliseconds on a clock every thread of the process shares (performance.now() is per thread). */
export const sharedClockMs = (): number => performance.timeOrigin + performance.now();

/**
 * Publishes `count` messages as the gateway does: many in flight at once (`window`),
 * at `ratePerSecond` from `from` (a sharedClockMs time) or as fast as they are taken.
 * `times[i]` is when message i was handed to the bus.
 */
export async function publishPaced(
  count: number,
  publish: (i: number) => Promise<void>,
  options: { from: number; ratePerSecond?: number; window: number },
): Promise<Float64Array> {
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
