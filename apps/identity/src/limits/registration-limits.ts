import { ApiError } from '@sightline/errors';
import type { Db } from '@sightline/db';
import { addMs, secondsUntil } from '@sightline/runtime';
import { takeOne, windowStartOf } from '../usage/usage-counter.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

interface Limit {
  /** bucket name prefix in usage_counters */
  bucket: string;
  max: number;
  windowMs: number;
  /** the `error` text of the 429 */
  message: string;
}

/** The spec's registration limits (Limits table). */
export const REGISTRATION_LIMITS = {
  requestsPerIp: {
    bucket: 'registration:ip',
    max: 20,
    windowMs: HOUR_MS,
    message: 'Too many registration requests from this IP address: 20 per hour across send-otp and verify-otp.',
  },
  codesPerAddress: {
    bucket: 'otp:address',
    max: 2,
    windowMs: MINUTE_MS,
    message: 'Too many verification codes for this address: 2 per minute.',
  },
  codesPerIp: {
    bucket: 'otp:ip',
    max: 5,
    windowMs: HOUR_MS,
    message: 'Too many verification codes requested from this IP address: 5 per hour.',
  },
} as const satisfies Record<string, Limit>;

function rateLimited(limit: Limit, windowStart: Date, now: Date): ApiError {
  return new ApiError('rate_limited', limit.message, { retryAfterSeconds: secondsUntil(addMs(windowStart, limit.windowMs), now) });
}

/**
 * Takes one unit from each limit, all or none: when one is exhausted nothing is
 * counted (a refused code request does not eat into the other limit) and the 429
 * names the first exhausted limit, Retry-After = seconds until its window ends.
 * Counters live in the database, so every replica sees the same budget.
 */
export async function takeFromLimits(db: Db, now: Date, takes: ReadonlyArray<{ limit: Limit; key: string }>): Promise<void> {
  await db.transaction(async (tx) => {
    for (const { limit, key } of takes) {
      const windowStart = windowStartOf(now, limit.windowMs);
      // throwing rolls back the units already taken in this call
      if (!(await takeOne(tx, `${limit.bucket}:${key}`, windowStart, limit.max))) throw rateLimited(limit, windowStart, now);
    }
  });
}
