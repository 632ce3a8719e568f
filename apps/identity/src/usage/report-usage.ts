import { ApiError } from '@sightline/errors';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from '../identity-context.js';
import { rfc3339 } from '@sightline/runtime';
import { addToCounters } from './usage-counter.js';

const HOUR_MS = 3_600_000;
/** windows that started longer ago than this are swept by the janitor; reporting into them is pointless */
export const USAGE_RETENTION_MS = 2 * HOUR_MS;
const MAX_BUCKETS = 10_000;
const MAX_BUCKET_LENGTH = 300;
/** counters are bigint; keep every delta (and so a sum of a few) far from 2^53 */
const MAX_DELTA = 1_000_000_000;

/**
 * A gateway replica adds what it counted since its last report to an hourly window
 * and learns the totals across every replica for the buckets it reported (a delta
 * of 0 just reads a bucket). Repeated buckets in one report are summed.
 */
export async function reportUsage(ctx: IdentityContext, request: identityV1.ReportUsageRequest): Promise<identityV1.ReportUsageResponse> {
  const now = ctx.clock();
  const windowStart = hourlyWindow(request.windowStart, now);
  const deltas = new Map<string, number>();
  if (request.deltas.length > MAX_BUCKETS) throw new ApiError('invalid_request', `At most ${MAX_BUCKETS} buckets per report.`);
  for (const { bucket, count } of request.deltas) {
    if (bucket.length < 1 || bucket.length > MAX_BUCKET_LENGTH)
      throw new ApiError('invalid_request', `A bucket name must be 1 to ${MAX_BUCKET_LENGTH} characters.`);
    if (!Number.isSafeInteger(count) || count < 0 || count > MAX_DELTA)
      throw new ApiError('invalid_request', `A count must be a whole number from 0 to ${MAX_DELTA}.`);
    deltas.set(bucket, (deltas.get(bucket) ?? 0) + count);
  }
  const totals = await addToCounters(ctx.db, windowStart, deltas);
  return { windowStart: rfc3339(windowStart), totals: [...totals].map(([bucket, count]) => ({ bucket, count })) };
}

/** The window start: RFC 3339, exactly on an hour, not in the future, not already swept. */
function hourlyWindow(text: string, now: Date): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at.getTime())) throw new ApiError('invalid_request', 'window_start must be an RFC 3339 timestamp.');
  if (at.getTime() % HOUR_MS !== 0) throw new ApiError('invalid_request', 'window_start must be the start of an hour (hh:00:00.000 UTC).');
  if (at > now) throw new ApiError('invalid_request', 'window_start must not be in the future.');
  if (now.getTime() - at.getTime() > USAGE_RETENTION_MS) throw new ApiError('invalid_request', 'window_start is older than the usage retention (2 hours).');
  return at;
}
