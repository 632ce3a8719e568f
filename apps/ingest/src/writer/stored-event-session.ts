import { EVENTS_TABLE } from '@sightline/events-schema';
import type { EventStore } from '@sightline/event-store';
import { toClickHouseTime } from '../sessions/clickhouse-time.js';

/**
 * The visit (session id) of an event already stored, else undefined; asked for
 * redelivered messages only. An event's identity is (site, name, visitor, time to the
 * millisecond) — all in the events sort key, so the lookup reads one granule and
 * costs no extra column on disk (a per-event UUID would cost ~16 B of the 30 B/event
 * budget). Two distinct events of one visitor with the same name in the same
 * millisecond would be taken for one.
 */
export async function storedEventSession(
  store: EventStore,
  event: { site_id: number; name: string; at: number },
  visitorIds: readonly string[],
): Promise<string | undefined> {
  const ts = toClickHouseTime(event.at);
  const rows = await store.query<{ session_id: string }>(
    `SELECT toString(session_id) AS session_id FROM ${EVENTS_TABLE}
     WHERE site_id = {site:UInt64} AND toDate(timestamp) = toDate({ts:DateTime64(3, 'UTC')}) AND name = {name:String}
       AND visitor_id IN {ids:Array(UInt64)} AND timestamp = {ts:DateTime64(3, 'UTC')}
     LIMIT 1`,
    { site: event.site_id, ts, name: event.name, ids: [...new Set(visitorIds)].map((id) => BigInt(id)) },
  );
  return rows[0]?.session_id;
}
