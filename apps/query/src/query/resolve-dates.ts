import { ApiError } from '@sightline/errors';
import { addDays, daysBetween, isCalendarDate, localDate, startOfLocalDay } from './zoned-time.js';

/**
 * Step 3: date_range (and compare) → concrete windows in the site's timezone.
 * A window is [startMs, endMs) in UTC plus the local dates it covers (inclusive).
 * `Nd` = the N days ending today (N 1..90); `month` = the 1st to today; explicit
 * [start, end] up to 366 days within EARLIEST_DATE..LATEST_DATE; `realtime` = the
 * last 30 minutes (from the start of the minute 30 minutes ago to now; the gateway may
 * ask for fewer minutes through the report site, for the live widget only). Compare: previous_period = the equal-length
 * window just before; an explicit pair must have the same number of days.
 */
export interface Window {
  kind: 'days' | 'realtime';
  startDate: string;
  endDate: string;
  startMs: number;
  endMs: number;
}

export const REALTIME_MINUTES = 30;
export const MAX_EXPLICIT_DAYS = 366;
export const MAX_RELATIVE_DAYS = 90;
/**
 * The dates a window may cover: the span of ClickHouse's DateTime64, the type of
 * every stored timestamp (outside it ClickHouse saturates, and Intl writes years
 * before 1000 unpadded, so they would not survive the zoned-time step).
 */
export const EARLIEST_DATE = '1900-01-01';
export const LATEST_DATE = '2299-12-31';

function dayWindow(startDate: string, endDate: string, timezone: string): Window {
  return { kind: 'days', startDate, endDate, startMs: startOfLocalDay(startDate, timezone), endMs: startOfLocalDay(addDays(endDate, 1), timezone) };
}

function explicitPair(range: [string, string], code: 'invalid_date_range' | 'invalid_compare'): [string, string] {
  const [start, end] = range;
  if (!isCalendarDate(start) || !isCalendarDate(end) || start > end) throw new ApiError(code, 'Dates must be YYYY-MM-DD with start on or before end.');
  if (start < EARLIEST_DATE || end > LATEST_DATE) throw new ApiError(code, `Dates must lie between ${EARLIEST_DATE} and ${LATEST_DATE}.`);
  if (daysBetween(start, end) > MAX_EXPLICIT_DAYS) throw new ApiError(code, `An explicit range spans at most ${MAX_EXPLICIT_DAYS} days.`);
  return [start, end];
}

export function resolveWindow(range: string | [string, string], timezone: string, nowMs: number, realtimeMinutes = REALTIME_MINUTES): Window {
  const today = localDate(nowMs, timezone);
  if (Array.isArray(range)) {
    const [start, end] = explicitPair(range, 'invalid_date_range');
    return dayWindow(start, end, timezone);
  }
  if (range === 'realtime') {
    const endMs = nowMs + 1; // inclusive of now
    const startMs = Math.floor(nowMs / 60_000) * 60_000 - realtimeMinutes * 60_000;
    return { kind: 'realtime', startDate: localDate(startMs, timezone), endDate: today, startMs, endMs };
  }
  if (range === 'month') return dayWindow(`${today.slice(0, 8)}01`, today, timezone);
  const days = /^([1-9]\d{0,2})d$/.exec(range);
  if (days && Number(days[1]) <= MAX_RELATIVE_DAYS) return dayWindow(addDays(today, -(Number(days[1]) - 1)), today, timezone);
  throw new ApiError(
    'invalid_date_range',
    `date_range must be Nd (N 1 to ${MAX_RELATIVE_DAYS}), month, realtime or [start, end] (up to ${MAX_EXPLICIT_DAYS} days).`,
  );
}

export function resolveCompareWindow(compare: string | [string, string], main: Window, timezone: string): Window {
  if (compare === 'previous_period') {
    if (main.kind === 'realtime') {
      const length = main.endMs - main.startMs;
      return {
        ...main,
        startMs: main.startMs - length,
        endMs: main.startMs,
        startDate: localDate(main.startMs - length, timezone),
        endDate: localDate(main.startMs - 1, timezone),
      };
    }
    const length = daysBetween(main.startDate, main.endDate);
    const start = addDays(main.startDate, -length);
    if (start < EARLIEST_DATE)
      throw new ApiError('invalid_compare', `The previous period would start before ${EARLIEST_DATE}; compare with an explicit [start, end].`);
    return dayWindow(start, addDays(main.startDate, -1), timezone);
  }
  if (!Array.isArray(compare)) throw new ApiError('invalid_compare', 'compare must be previous_period or [start, end].');
  const [start, end] = explicitPair(compare, 'invalid_compare');
  if (main.kind === 'realtime') throw new ApiError('invalid_compare', 'A realtime window compares only with previous_period.');
  if (daysBetween(start, end) !== daysBetween(main.startDate, main.endDate)) throw new ApiError('compare_length_mismatch');
  return dayWindow(start, end, timezone);
}
