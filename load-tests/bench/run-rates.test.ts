import { describe, expect, it } from 'vitest';
import { latencyByTenth, median, percentile, sustainedRate } from './run-rates.js';

// The ingestion bench's summary figures, on times whose answers are known by hand.
const shuffled = <T>(values: T[]): T[] =>
  values
    .map((v, i) => [(i * 7919) % values.length, v] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, v]) => v);

describe('percentile', () => {
  it('takes the nearest rank below; NaN for no values', () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile(ten, 50)).toBe(6);
    expect(percentile(ten, 99)).toBe(10);
    expect(percentile(ten, 100)).toBe(10);
    expect(percentile([42], 50)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones, whatever the order; NaN for none', () => {
    expect(median([0.7, 0.5, 0.6])).toBe(0.6);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([9])).toBe(9);
    expect(median([])).toBeNaN();
  });
});

describe('sustainedRate', () => {
  it('counts the events stored between the 10 % and 90 % marks over the time between them, whatever the order given', () => {
    // one event stored per ms for 2 s: 1,000 events/s
    expect(sustainedRate(shuffled(Array.from({ length: 2000 }, (_, i) => i)))).toBe(1000);
  });

  it('leaves out a slow start and a slow tail (the last partial batch waiting for its timer)', () => {
    // 100 events trickle in over the first 10 s, 1,800 at 2 per ms, 100 after a 5 s wait
    const times = [
      ...Array.from({ length: 100 }, (_, i) => i * 100),
      ...Array.from({ length: 1800 }, (_, i) => 10_000 + i / 2),
      ...Array.from({ length: 100 }, () => 16_000),
    ];
    // from index 200 (10,050 ms) to index 1800 (10,850 ms): 1,600 events in 0.8 s
    expect(sustainedRate(times)).toBe(2000);
  });

  it('has no figure for under 1,000 events, or when they were all stored at once', () => {
    expect(sustainedRate(Array.from({ length: 999 }, (_, i) => i))).toBeUndefined();
    expect(sustainedRate(Array.from({ length: 5000 }, () => 7))).toBeUndefined();
  });
});

describe('latencyByTenth', () => {
  it('gives the median latency of each tenth of the run, in the order the events were sent', () => {
    // 100 events; the second half waited 100 ms instead of 10
    const pairs = shuffled(Array.from({ length: 100 }, (_, i) => [i, i < 50 ? 10 : 100] as [number, number]));
    expect(latencyByTenth(pairs)).toEqual([10, 10, 10, 10, 10, 100, 100, 100, 100, 100]);
  });

  it('puts the remainder in the last tenth', () => {
    // 25 events: tenths of 2, the last of 7 (its median is the 4th of 7, rounded)
    const pairs = Array.from({ length: 25 }, (_, i) => [i, i] as [number, number]);
    expect(latencyByTenth(pairs)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 21]);
  });
});
