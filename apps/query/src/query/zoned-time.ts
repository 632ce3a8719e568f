/**
 * Calendar arithmetic in an IANA timezone with the platform's Intl data (the same
 * tz database ClickHouse uses), without a dependency. Dates are 'YYYY-MM-DD' text;
 * instants are epoch milliseconds.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timezone, f);
  }
  return f;
}

export function isTimezone(timezone: string): boolean {
  try {
    formatter(timezone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of an instant in a timezone. */
export function wallClock(instantMs: number, timezone: string): { date: string; hour: string; minute: string; second: string } {
  const parts = Object.fromEntries(formatter(timezone).formatToParts(new Date(instantMs)).map((p) => [p.type, p.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

function offsetMs(instantMs: number, timezone: string): number {
  const w = wallClock(instantMs, timezone);
  const asUtc = Date.parse(`${w.date}T${w.hour}:${w.minute}:${w.second}Z`);
  return asUtc - Math.floor(instantMs / 1000) * 1000;
}

/** The instant a local date begins (00:00, or the first existing minute on a DST gap day). */
export function startOfLocalDay(date: string, timezone: string): number {
  const guess = Date.parse(`${date}T00:00:00Z`);
  let instant = guess - offsetMs(guess, timezone);
  const corrected = guess - offsetMs(instant, timezone);
  if (corrected !== instant && wallClock(corrected, timezone).date === date) instant = Math.min(instant, corrected);
  return instant;
}

export function localDate(instantMs: number, timezone: string): string {
  return wallClock(instantMs, timezone).date;
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Inclusive day count of [start, end]. */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return Number.isFinite(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}

/** 0 = Sunday … 6 = Saturday */
export function dayOfWeek(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}
