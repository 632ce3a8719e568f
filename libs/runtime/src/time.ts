// Date arithmetic and the one timestamp format of every answer, shared by the services
// (identity and sites had twin copies).
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export const addMs = (at: Date, ms: number): Date => new Date(at.getTime() + ms);
export const addMinutes = (at: Date, minutes: number): Date => addMs(at, minutes * MINUTE_MS);
export const addDays = (at: Date, days: number): Date => addMs(at, days * DAY_MS);

/** RFC 3339 in UTC with milliseconds, the one form every timestamp in an answer takes. */
export const rfc3339 = (at: Date): string => at.toISOString();

/** Whole seconds from `now` until `at`, at least 1 (a Retry-After of 0 invites a tight loop). */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
}
