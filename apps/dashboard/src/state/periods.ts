import { MAX_RANGE_DAYS, type CompareMode, type DashboardState, type Interval, type Period } from './url-state.js';

/**
 * Periods → the API's `date_range`, `compare` and allowed intervals (spec: `Nd` for
 * N 1..90, `month`, `realtime`, or explicit [start, end] up to 366 days; `time:hour`
 * up to 31 days; `time:minute` only with realtime). `today` is the site's local date
 * (the caller computes it in the site's timezone). Pure: no clock, no DOM.
 */
export type DateRange = string | [string, string];

export interface ResolvedPeriod {
  dateRange: DateRange;
  /** the concrete local dates the window covers, inclusive */
  start: string;
  end: string;
  /** undefined: compare off */
  compare?: DateRange;
  intervals: Interval[];
  interval: Interval;
  /** the window reaches today: its last bucket is still filling */
  includesToday: boolean;
}

/** The API's longest explicit range: "last 366 days" (no "all time": the API has none) and "12 months" stay within it. */
export const MAX_EXPLICIT_DAYS = MAX_RANGE_DAYS;
const MAX_HOURLY_DAYS = 31;

export const PERIOD_LABELS: Record<Period, string> = {
  realtime: 'Realtime',
  day: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '28d': 'Last 28 days',
  '30d': 'Last 30 days',
  month: 'This month',
  last_month: 'Last month',
  '12mo': 'Last 12 months',
  '366d': 'Last 366 days',
  custom: 'Custom range',
};

export function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/** Number of days from a to b inclusive. */
export function daysIn(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

function monthStart(date: string, monthsBack: number): string {
  const at = new Date(`${date.slice(0, 7)}-01T00:00:00Z`);
  at.setUTCMonth(at.getUTCMonth() - monthsBack);
  return at.toISOString().slice(0, 10);
}

function shiftYear(date: string, years: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  const day = at.getUTCDate();
  at.setUTCFullYear(at.getUTCFullYear() + years, at.getUTCMonth(), 1);
  const last = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  at.setUTCDate(Math.min(day, last)); // 29 Feb → 28 Feb
  return at.toISOString().slice(0, 10);
}

function window(state: DashboardState, today: string): { dateRange: DateRange; start: string; end: string } {
  const explicit = (start: string, end: string) => ({ dateRange: [start, end] as [string, string], start, end });
  const lastDays = (n: number) => ({ dateRange: `${n}d`, start: addDays(today, -(n - 1)), end: today });
  switch (state.period) {
    case 'realtime':
      return { dateRange: 'realtime', start: today, end: today };
    case 'day':
      return lastDays(1);
    case 'yesterday':
      return explicit(addDays(today, -1), addDays(today, -1));
    case '7d':
      return lastDays(7);
    case '28d':
      return lastDays(28);
    case '30d':
      return lastDays(30);
    case 'month':
      return { dateRange: 'month', start: monthStart(today, 0), end: today };
    case 'last_month':
      return explicit(monthStart(today, 1), addDays(monthStart(today, 0), -1));
    case '12mo':
      return explicit(monthStart(today, 11), today);
    case '366d':
      return explicit(addDays(today, -(MAX_EXPLICIT_DAYS - 1)), today);
    case 'custom': {
      const start = state.from ?? today;
      let end = state.to ?? today;
      if (daysIn(start, end) > MAX_EXPLICIT_DAYS) end = addDays(start, MAX_EXPLICIT_DAYS - 1);
      return explicit(start, end);
    }
  }
}

export function intervalsFor(period: Period, days: number): Interval[] {
  if (period === 'realtime') return ['minute'];
  const list: Interval[] = [];
  if (days <= MAX_HOURLY_DAYS) list.push('hour');
  list.push('day');
  if (days > 7) list.push('week');
  if (days > 31) list.push('month');
  return list;
}

function defaultInterval(period: Period, days: number): Interval {
  if (period === 'realtime') return 'minute';
  if (days <= 2) return 'hour';
  if (period === '12mo' || period === '366d' || days > 120) return 'month';
  return 'day';
}

function compareRange(mode: CompareMode, period: Period, start: string, end: string): DateRange | undefined {
  if (mode === 'off') return undefined;
  if (mode === 'previous' || period === 'realtime') return 'previous_period';
  const from = shiftYear(start, -1);
  return [from, addDays(from, daysIn(start, end) - 1)]; // same length, as the API requires
}

export function resolvePeriod(state: DashboardState, today: string): ResolvedPeriod {
  const { dateRange, start, end } = window(state, today);
  const days = daysIn(start, end);
  const intervals = intervalsFor(state.period, days);
  const interval = state.interval && intervals.includes(state.interval) ? state.interval : defaultInterval(state.period, days);
  const compare = compareRange(state.compare, state.period, start, end);
  return { dateRange, start, end, ...(compare ? { compare } : {}), intervals, interval, includesToday: end >= today };
}

/** The site's local date and time-of-day label at `nowMs` (`YYYY-MM-DD HH:MM`). */
export function localNow(nowMs: number, timezone: string): { date: string; minute: string } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(nowMs));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  const date = `${get('year')}-${get('month')}-${get('day')}`;
  return { date, minute: `${date} ${get('hour')}:${get('minute')}` };
}

/**
 * Index of the bucket now falls in (the partial one), or -1 when the window is
 * closed; buckets after it are in the future. Labels are the API's: `YYYY-MM-DD`
 * (day/week/month: a bucket starts at its label) or `YYYY-MM-DD HH:MM` / `HH:00`.
 */
export function currentBucket(labels: readonly string[], nowMinute: string, includesToday: boolean): number {
  if (!includesToday) return -1;
  let index = -1;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    const comparable = label.length === 10 ? label : label.slice(0, 16);
    if (comparable <= nowMinute.slice(0, comparable.length)) index = i;
  }
  return index;
}

/**
 * The period each keyboard shortcut selects: Plausible's letters (d today, e yesterday,
 * r realtime, w 7 days, t 30 days, m this month, l 12 months, a "all time" — here the
 * last 366 days, the API's longest window — c custom),
 * plus f for 28 days and p for the previous month.
 */
export const PERIOD_SHORTCUTS: ReadonlyArray<[key: string, period: Period]> = [
  ['d', 'day'],
  ['e', 'yesterday'],
  ['r', 'realtime'],
  ['w', '7d'],
  ['f', '28d'],
  ['t', '30d'],
  ['m', 'month'],
  ['p', 'last_month'],
  ['l', '12mo'],
  ['a', '366d'],
  ['c', 'custom'],
];
