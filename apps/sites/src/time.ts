export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export const addMs = (at: Date, ms: number): Date => new Date(at.getTime() + ms);

/** RFC 3339 in UTC with milliseconds, the one form every timestamp in an answer takes. */
export const rfc3339 = (at: Date): string => at.toISOString();
