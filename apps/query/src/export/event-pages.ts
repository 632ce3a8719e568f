import type { EventStore } from '@sightline/event-store';
import { EVENTS_IN_WINDOW } from '../query/window-sql.js';
import { STORED_EVENT_SELECT, type StoredEvent } from './export-columns.js';

/**
 * Rows per page. chDB's binding answers a statement whole, so a page bounds what one
 * statement holds (a few MB of rows); the service turns each into chunks before it
 * reads the next.
 */
export const EXPORT_PAGE_ROWS = 5_000;

export interface ExportWindow {
  siteId: number;
  startMs: number;
  endMs: number;
}

/** The events sort key after site_id: pages follow it, so each one reads only its own granules, in order. */
const KEY = 'toDate(timestamp), name, visitor_id, timestamp';

export const windowParams = (window: ExportWindow) => ({ site_id: window.siteId, start: new Date(window.startMs), end: new Date(window.endMs) });

/**
 * A window's events, page by page, by keyset on the sort key (no OFFSET: page N
 * costs what page 1 does). `LIMIT n WITH TIES` keeps rows equal on the whole key
 * (one visitor's events of one name in the same millisecond) in one page, so the next
 * page can start strictly after the last row's key and none is lost or repeated.
 */
export async function* eventPages(events: EventStore, window: ExportWindow, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<StoredEvent[]> {
  let after: StoredEvent | undefined;
  for (;;) {
    const keyset = after
      ? ` AND toDate(timestamp) >= {after_day:Date} AND (${KEY}) > ({after_day:Date}, {after_name:String}, {after_visitor:UInt64}, {after_ts:DateTime64(3)})`
      : '';
    const params = {
      ...windowParams(window),
      page: pageRows,
      ...(after ? { after_day: after.day, after_name: after.name, after_visitor: after.visitor_key, after_ts: new Date(Number(after.ms)) } : {}),
    };
    const rows = await events.query<StoredEvent>(
      `SELECT ${STORED_EVENT_SELECT} FROM events WHERE ${EVENTS_IN_WINDOW}${keyset} ORDER BY ${KEY} LIMIT {page:UInt32} WITH TIES`,
      params,
    );
    if (rows.length > 0) yield rows;
    if (rows.length < pageRows) return;
    after = rows[rows.length - 1];
  }
}

/** The window's events when the export starts (the progress header). */
export async function countWindowEvents(events: EventStore, window: ExportWindow): Promise<number> {
  const [row] = await events.query<{ rows: number }>(`SELECT count() AS rows FROM events WHERE ${EVENTS_IN_WINDOW}`, windowParams(window));
  return Number(row?.rows ?? 0);
}

export { KEY as EXPORT_ORDER_BY };
