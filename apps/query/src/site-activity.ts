import { ApiError } from '@sightline/errors';
import type { EventStore } from '@sightline/event-store';
import type { queryV1 } from '@sightline/proto';

/**
 * Events a site recorded since a time. The `events` table is created by ingestion;
 * until it exists no site has recorded anything, which is the true answer, not a
 * guess. Only `site_id` and `timestamp` are read: that is the contract this query
 * holds the table to (apps/query/README.md).
 */
export async function siteActivity(events: EventStore, request: queryV1.SiteActivityRequest): Promise<queryV1.SiteActivityResponse> {
  const since = new Date(request.since);
  if (!Number.isFinite(since.getTime()) || request.siteId <= 0) throw new ApiError('invalid_request', 'site_id and since (RFC 3339) are required.');
  const [table] = await events.query<{ present: number }>(
    'SELECT count() AS present FROM system.tables WHERE database = {database:String} AND name = {table:String}',
    { database: events.database, table: 'events' },
  );
  if (!table || Number(table.present) === 0) return { events: 0 };
  const [row] = await events.query<{ events: number }>(
    // the day bound lets the sort key skip earlier days (see query/window-sql.ts)
    'SELECT count() AS events FROM events WHERE site_id = {site:UInt64} AND toDate(timestamp) >= toDate({since:DateTime64(3)}) AND timestamp >= {since:DateTime64(3)}',
    { site: request.siteId, since: since.toISOString().replace('T', ' ').replace('Z', '') },
  );
  return { events: Number(row?.events ?? 0) };
}
