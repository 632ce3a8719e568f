import { ApiError } from '@sightline/errors';
import type { Interval } from '../catalogue/dimensions.js';
import type { Window } from './resolve-dates.js';
import { addDays, daysBetween, dayOfWeek, wallClock } from './zoned-time.js';

/**
 * Time-series buckets: the full list for a window (so empty buckets are zero-filled),
 * and the SQL key of a row's bucket, both as text that match exactly.
 * - minute / hour buckets are keyed by the epoch second the local minute/hour
 *   begins, so the repeated hour of a DST day stays two buckets (25) and the
 *   skipped one is absent (23); labels are local `YYYY-MM-DD HH:MM` / `HH:00`.
 * - day / week / month are keyed and labelled by the local date; weeks start on the
 *   site's week_start; a partial first week (or month) is labelled with the
 *   window's first day.
 * Rule for invalid_interval: `time:minute` only with realtime and realtime only
 * with `time:minute`; `time:hour` up to 31 days; day, week and month any window.
 */
export interface Bucket {
  key: string;
  label: string;
}

export const MAX_HOURLY_DAYS = 31;

export function checkInterval(interval: Interval, window: Window): void {
  if ((interval === 'minute') !== (window.kind === 'realtime'))
    throw new ApiError('invalid_interval', 'time:minute goes with realtime, and realtime with time:minute.');
  if (interval === 'hour' && daysBetween(window.startDate, window.endDate) > MAX_HOURLY_DAYS)
    throw new ApiError('invalid_interval', `time:hour covers at most ${MAX_HOURLY_DAYS} days.`);
}

export function listBuckets(interval: Interval, window: Window, timezone: string, weekStart: number): Bucket[] {
  const buckets: Bucket[] = [];
  if (interval === 'minute' || interval === 'hour') {
    const step = interval === 'minute' ? 60_000 : 3_600_000;
    for (let at = window.startMs; at < window.endMs; at += step) {
      const w = wallClock(at, timezone);
      buckets.push({ key: String(at / 1000), label: `${w.date} ${w.hour}:${interval === 'minute' ? w.minute : '00'}` });
    }
    return buckets;
  }
  for (let date = window.startDate; date <= window.endDate; date = addDays(date, 1)) {
    const opens =
      date === window.startDate ||
      interval === 'day' ||
      (interval === 'week' && dayOfWeek(date) === weekStart) ||
      (interval === 'month' && date.endsWith('-01'));
    if (opens) buckets.push({ key: date, label: date });
  }
  return buckets;
}

/** SQL text of the bucket key of the instant `ts` (a DateTime64 expression). */
export function bucketKeySql(interval: Interval, ts: string): string {
  const localDay = `toDate(${ts}, {tz:String})`;
  switch (interval) {
    case 'minute':
      return `toString(intDiv(toUnixTimestamp(${ts}), 60) * 60)`;
    case 'hour':
      return `toString(toUnixTimestamp(${ts}) - toMinute(toTimeZone(${ts}, {tz:String})) * 60 - toSecond(${ts}))`;
    case 'day':
      return `toString(${localDay})`;
    case 'week':
      return `toString(greatest(${localDay} - toIntervalDay((toDayOfWeek(${localDay}) % 7 + 7 - {week_start:UInt8}) % 7), {window_start_date:Date}))`;
    case 'month':
      return `toString(greatest(toStartOfMonth(${localDay}), {window_start_date:Date}))`;
  }
}
