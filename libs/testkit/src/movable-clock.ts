import type { Clock } from '@sightline/runtime';

/** A clock tests move by hand: trials, expiries and limit windows without waiting. */
export interface MovableClock {
  clock: Clock;
  now(): Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function movableClock(start: Date | string): MovableClock {
  let current = new Date(start).getTime();
  return {
    clock: () => new Date(current),
    now: () => new Date(current),
    set: (at) => void (current = new Date(at).getTime()),
    advance: (ms) => void (current += ms),
  };
}

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
