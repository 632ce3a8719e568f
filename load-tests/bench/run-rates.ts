// How a timed bench run is summed up: pure functions of the times the bench
// recorded, kept apart so they can be tested (the figures in the issue notes and the
// README come from them).

/** The value at percentile p (0–100) of ascending values: the nearest rank below; NaN for none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Events/s while the pipeline runs at full speed: from the moment 10 % of the events
 * were stored to the moment 90 % were. The end-to-end figure (first publish to last
 * row) also holds the start (publisher and consumers ramping up) and the tail, where
 * the last, partial batch waits for its timer (INGEST_BATCH_MAX_DELAY_MS) and both of
 * its stages: 1–2 s with the event loop idle, a tenth of a 100k run on this machine.
 * Undefined under 1,000 events (too few for the figure to mean anything).
 */
export function sustainedRate(storedTimes: readonly number[]): number | undefined {
  if (storedTimes.length < 1000) return undefined;
  const sorted = [...storedTimes].sort((a, b) => a - b);
  const from = Math.floor(sorted.length * 0.1);
  const to = Math.floor(sorted.length * 0.9);
  const seconds = (sorted[to]! - sorted[from]!) / 1000;
  return seconds > 0 ? Math.round((to - from) / seconds) : undefined;
}

/** p50 publish → queryable (ms) of the events published in each tenth of the run, in publish order ([sent at, latency] pairs). */
export function latencyByTenth(bySend: readonly (readonly [number, number])[]): number[] {
  const sorted = [...bySend].sort((a, b) => a[0] - b[0]);
  const size = Math.max(1, Math.floor(sorted.length / 10));
  return Array.from({ length: 10 }, (_, i) =>
    Math.round(
      percentile(
        sorted
          .slice(i * size, i === 9 ? sorted.length : (i + 1) * size)
          .map((x) => x[1])
          .sort((a, b) => a - b),
        50,
      ),
    ),
  );
}
