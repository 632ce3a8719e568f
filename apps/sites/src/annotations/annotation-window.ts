import { ApiError } from '@sightline/errors';
import type { sitesV1 } from '@sightline/proto';
import { LIMITS } from '../limits.js';
import { calendarDay } from './annotation-input.js';

/** Where a page ends: the sort key of its last note (local day, instant or null for a day note, id). */
export interface AnnotationCursor {
  day: string;
  at: string | null;
  id: number;
}

export interface ParsedWindow {
  from: string | null;
  to: string | null;
  limit: number;
  after: AnnotationCursor | null;
}

/** Opaque to clients: base64url of the site and the page's last sort key. */
export function encodeAnnotationCursor(siteId: number, last: AnnotationCursor): string {
  return Buffer.from(JSON.stringify({ s: siteId, d: last.day, t: last.at, i: last.id })).toString('base64url');
}

function decodeCursor(cursor: string, siteId: number): AnnotationCursor | null {
  if (cursor === '') return null;
  const invalid = () => new ApiError('invalid_request', 'cursor is not valid here: pass next_cursor of the previous page of this site unchanged.');
  if (cursor.length > 300 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { s, d, t, i } = (parsed ?? {}) as Record<string, unknown>;
  if (s !== siteId || typeof d !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(d)) throw invalid();
  if (t !== null && (typeof t !== 'string' || Number.isNaN(Date.parse(t)))) throw invalid();
  if (typeof i !== 'number' || !Number.isSafeInteger(i) || i <= 0) throw invalid();
  return { day: d, at: t, id: i };
}

/** A list's window: inclusive site-local days, a page size 1..500 (0: 100), and where the last page ended. */
export function parseWindow(window: sitesV1.AnnotationWindow | undefined, siteId: number): ParsedWindow {
  const from = window?.from ? calendarDay('from', window.from) : null;
  const to = window?.to ? calendarDay('to', window.to) : null;
  if (from !== null && to !== null && from > to) throw new ApiError('invalid_request', `from (${from}) is after to (${to}).`);
  const limit = !window?.limit ? LIMITS.annotationPageDefault : window.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.annotationPageMax) {
    throw new ApiError('invalid_request', `limit must be between 1 and ${LIMITS.annotationPageMax} (default ${LIMITS.annotationPageDefault}).`);
  }
  return { from, to, limit, after: decodeCursor(window?.cursor ?? '', siteId) };
}
