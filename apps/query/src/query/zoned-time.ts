/**
 * Calendar arithmetic in an IANA timezone with the platform's Intl data (the same
 * tz database ClickHouse uses), without a dependency. Dates are 'YYYY-MM-DD' text;
 * instants are epoch milliseconds.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
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
  const parts = Object.fromEntries(
    formatter(timezone)
      .formatToParts(new Date(instantMs))
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** Local offsets lie within UTC−12 … UTC+14, so a local date begins within this distance of its UTC midnight. */
const MAX_OFFSET_MS = 16 * 3_600_000;

/**
 * The instant a local date begins: its first instant in local time (SEMANTICS, Time).
 * Where midnight repeats (Havana falls back 01:00 → 00:00), the first midnight; where
 * it is skipped (Santiago, Beirut spring forward at 00:00), the first local time that
 * exists; where the clock falls back across midnight (Santiago 24:00 → 23:00), the
 * midnight after the repeated hour, since the hour before it still belongs to the day
 * before. Found by bisection over whole seconds (tz transitions fall on them) for the
 * first instant whose local date is not before `date`: local dates never go back.
 */
export function startOfLocalDay(date: string, timezone: string): number {
  const key = `${timezone} ${date}`;
  let start = dayStarts.get(key);
  if (start === undefined) {
    start = guessedStartOfLocalDay(date, timezone) ?? bisectedStartOfLocalDay(date, timezone);
    // every query asks a few of these, mostly the same ones; a tz rule never changes within a process
    if (dayStarts.size >= DAY_STARTS_KEPT) dayStarts.clear();
    dayStarts.set(key, start);
  }
  return start;
}

const dayStarts = new Map<string, number>();
const DAY_STARTS_KEPT = 10_000;

/**
 * The common case in 2–4 lookups instead of the bisection's 17: UTC midnight minus the
 * offset in force (tried at UTC midnight, then at the first guess). A guess is the answer
 * only if it is the first second of `date` — its local date is `date` or later and the
 * second before is earlier — which, local dates never going back, is exactly what the
 * bisection finds. Anything else (no such second near the guesses) is left to it.
 */
function guessedStartOfLocalDay(date: string, timezone: string): number | undefined {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  let at = midnightUtc;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const guess = midnightUtc - offsetMs(at, timezone);
    if (!Number.isFinite(guess)) return undefined;
    if (localDate(guess, timezone) >= date && localDate(guess - 1000, timezone) < date) return guess;
    at = guess;
  }
  return undefined;
}

/** Local wall-clock time minus UTC at a whole-second instant (NaN where the date has no ISO form). */
function offsetMs(instantMs: number, timezone: string): number {
  const w = wallClock(instantMs, timezone);
  return Date.parse(`${w.date}T${w.hour}:${w.minute}:${w.second}Z`) - instantMs;
}

function bisectedStartOfLocalDay(date: string, timezone: string): number {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  let before = (midnightUtc - MAX_OFFSET_MS) / 1000; // local date before `date`
  let from = (midnightUtc + MAX_OFFSET_MS) / 1000; // local date `date` or later
  while (from - before > 1) {
    const middle = Math.floor((before + from) / 2);
    if (localDate(middle * 1000, timezone) >= date) from = middle;
    else before = middle;
  }
  return from * 1000;
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
