import type { Queryable } from '@sightline/db';

/**
 * Fixed-window counters in `identity.usage_counters`, shared by every replica of
 * every service that talks to this database. Each call is one atomic statement, so
 * concurrent callers never lose an increment.
 */

/** Start of the fixed window of `lengthMs` that `now` falls in (windows align to the Unix epoch). */
export function windowStartOf(now: Date, lengthMs: number): Date {
  return new Date(Math.floor(now.getTime() / lengthMs) * lengthMs);
}

/**
 * Adds each count to its bucket's window and returns the new totals. Buckets are
 * written in sorted order so two callers touching the same buckets cannot deadlock.
 */
export async function addToCounters(db: Queryable, windowStart: Date, deltas: ReadonlyMap<string, number>): Promise<Map<string, number>> {
  const buckets = [...deltas.keys()].sort();
  if (buckets.length === 0) return new Map();
  const { rows } = await db.query<{ bucket: string; count: number }>(
    `INSERT INTO identity.usage_counters AS c (bucket, window_start, count)
       SELECT bucket, $1, n FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS t(bucket, n, i) ORDER BY i
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + EXCLUDED.count
     RETURNING bucket, count`,
    [windowStart, buckets, buckets.map((bucket) => deltas.get(bucket)!)],
  );
  return new Map(rows.map((row) => [row.bucket, Number(row.count)]));
}

/**
 * Takes one unit from a bucket's window unless it already holds `limit`: true when
 * taken. The check and the increment are one statement, so no two callers can both
 * take the last unit.
 */
export async function takeOne(db: Queryable, bucket: string, windowStart: Date, limit: number): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO identity.usage_counters AS c (bucket, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + 1 WHERE c.count < $3
     RETURNING count`,
    [bucket, windowStart, limit],
  );
  return rows.length === 1;
}
