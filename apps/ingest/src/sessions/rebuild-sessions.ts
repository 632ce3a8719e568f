import { SESSION_ATTRIBUTE_COLUMNS, SESSIONS_TABLE } from '@sightline/events-schema';
import type { EventStore } from '@sightline/event-store';
import { fromClickHouseTime, toClickHouseTime } from './clickhouse-time.js';
import type { SessionCache } from './session-cache.js';
import type { SessionAttributes } from './session-event.js';
import { SESSION_GAP_MINUTES, type LiveSession } from './sessionizer.js';

const STATE_COLUMNS = ['visitor_id', 'start', 'timestamp', 'hostname', 'entry_page', 'exit_page', 'pageviews', 'events', 'engagement_ms', 'import_id'];
// Exact text for UInt64 ids and DateTime64 (JSON numbers lose precision past 2^53).
const AS_TEXT = new Set(['visitor_id', 'start', 'timestamp']);

/**
 * After a restart: the latest version of every visit still live (last event within
 * the 30-minute rule of `now`) back into the cache, so an event after the restart
 * continues its visit as it would have without one. A visit whose rows collapse to
 * nothing (sum(sign) = 0) was superseded or deleted. The tab marker is not stored,
 * so rebuilt visits are found by visitor id only.
 */
export async function rebuildSessions(store: EventStore, cache: SessionCache, now: Date): Promise<number> {
  const since = now.getTime() - (SESSION_GAP_MINUTES + 1) * 60_000;
  // argMax by version: the -1 and +1 rows of one version carry the same state.
  // Aliased `latest_*`: an alias named like a column would replace the column in WHERE.
  const picks = [...STATE_COLUMNS, ...SESSION_ATTRIBUTE_COLUMNS]
    .map((c) => (AS_TEXT.has(c) ? `toString(argMax(${c}, version)) AS latest_${c}` : `argMax(${c}, version) AS latest_${c}`))
    .join(', ');
  const rows = await store.query<Record<string, string | number>>(
    `SELECT site_id, toString(session_id) AS session_id, max(version) AS latest_version, ${picks}
     FROM ${SESSIONS_TABLE}
     WHERE timestamp >= {since:DateTime64(3, 'UTC')}
     GROUP BY site_id, session_id
     HAVING sum(sign) > 0`,
    { since: toClickHouseTime(since) },
  );
  for (const row of rows) {
    const r = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/^latest_/, ''), v]));
    const attributes = Object.fromEntries(SESSION_ATTRIBUTE_COLUMNS.map((c) => [c, c === 'city' ? Number(r[c]) : String(r[c])])) as SessionAttributes;
    const session: LiveSession = {
      site_id: Number(r.site_id),
      session_id: String(r.session_id),
      visitor_id: String(r.visitor_id),
      marker: '',
      start: fromClickHouseTime(String(r.start)),
      last: fromClickHouseTime(String(r.timestamp)),
      version: Number(r.version),
      hostname: String(r.hostname),
      entry_page: String(r.entry_page),
      exit_page: String(r.exit_page),
      pageviews: Number(r.pageviews),
      events: Number(r.events),
      engagement_ms: Number(r.engagement_ms),
      attributes,
      import_id: Number(r.import_id),
    };
    cache.put(session, session.visitor_id);
  }
  return rows.length;
}
