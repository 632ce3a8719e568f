import type { EventStore } from '@sightline/event-store';
import { resolveWindow } from './query/resolve-dates.js';
import type { ReportSite } from './query/report-site.js';
import { EVENTS_IN_WINDOW } from './query/window-sql.js';

/**
 * GET /props: the custom property keys recorded in the window with the number of
 * events carrying each, most used first (then key asc). Same date-range rules as
 * POST /query; at most PROPS_LIMIT keys.
 */
export const PROPS_LIMIT = 1000;

export interface PropsAnswer {
  props: { key: string; events: number }[];
  date_range: [string, string];
}

export async function listProps(
  events: EventStore,
  dateRange: string | [string, string],
  site: Pick<ReportSite, 'siteId' | 'timezone' | 'nowMs'>,
): Promise<PropsAnswer> {
  const window = resolveWindow(dateRange, site.timezone, site.nowMs);
  const rows = await events.query<{ key: string; events: number }>(
    `SELECT key, count() AS events FROM events ARRAY JOIN prop_keys AS key WHERE ${EVENTS_IN_WINDOW} GROUP BY key ORDER BY events DESC, key ASC LIMIT {limit:UInt32}`,
    {
      site_id: site.siteId,
      start: new Date(window.startMs).toISOString().replace('T', ' ').replace('Z', ''),
      end: new Date(window.endMs).toISOString().replace('T', ' ').replace('Z', ''),
      limit: PROPS_LIMIT,
    },
  );
  return {
    props: rows.map((row) => ({ key: row.key, events: Number(row.events) })),
    date_range:
      window.kind === 'realtime' ? [new Date(window.startMs).toISOString(), new Date(window.endMs - 1).toISOString()] : [window.startDate, window.endDate],
  };
}
