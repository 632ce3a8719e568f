import { describe, expect, it } from 'vitest';
import { fromClickHouseTime, toClickHouseTime } from './clickhouse-time.js';

const viaDate = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);

describe('toClickHouseTime', () => {
  it('matches the Date-based text on day edges, leap days and random instants, in any order', () => {
    const instants = [
      0,
      1,
      999,
      1000,
      59_999,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1),
      Date.UTC(2026, 10, 23, 22, 5, 7, 42),
      253_402_300_799_999,
    ];
    let seed = 7;
    for (let i = 0; i < 2000; i += 1) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      instants.push(Math.floor((seed / 2 ** 31) * 4_102_444_800_000));
    }
    for (const ms of instants) {
      expect(toClickHouseTime(ms)).toBe(viaDate(ms));
      expect(fromClickHouseTime(toClickHouseTime(ms))).toBe(ms);
    }
  });

  it('falls back to Date for instants outside four-digit years and fractional ms', () => {
    expect(toClickHouseTime(-1)).toBe(viaDate(-1));
    expect(toClickHouseTime(1.7)).toBe(viaDate(1.7));
  });
});
