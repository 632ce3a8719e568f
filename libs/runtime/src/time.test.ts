import { describe, expect, it } from 'vitest';
import { addDays, addMinutes, addMs, rfc3339, secondsUntil } from './time.js';

describe('time helpers', () => {
  const at = new Date('2026-03-02T10:00:00.000Z');

  it('adds milliseconds, minutes and days', () => {
    expect(addMs(at, 1_500).toISOString()).toBe('2026-03-02T10:00:01.500Z');
    expect(addMinutes(at, 90).toISOString()).toBe('2026-03-02T11:30:00.000Z');
    expect(addDays(at, 30).toISOString()).toBe('2026-04-01T10:00:00.000Z');
  });

  it('formats RFC 3339 in UTC with milliseconds', () => {
    expect(rfc3339(new Date(Date.UTC(2026, 0, 5, 7, 8, 9, 12)))).toBe('2026-01-05T07:08:09.012Z');
  });

  it('secondsUntil rounds up and never answers less than 1', () => {
    expect(secondsUntil(new Date(at.getTime() + 1_001), at)).toBe(2);
    expect(secondsUntil(new Date(at.getTime() + 60_000), at)).toBe(60);
    expect(secondsUntil(at, at)).toBe(1);
    expect(secondsUntil(new Date(at.getTime() - 5_000), at)).toBe(1);
  });
});
