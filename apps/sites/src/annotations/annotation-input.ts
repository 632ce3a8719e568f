import { ApiError } from '@sightline/errors';
import { LIMITS } from '../limits.js';
import { CONTROL } from '../text-input.js';

/** The moment a note is pinned to: a whole site-local day, or an instant. */
export type AnnotationMoment = { day: string; at: null } | { day: null; at: Date };

// the span POST /query's date_range accepts
const FIRST_DAY = '1900-01-01';
const LAST_DAY = '2299-12-31';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 with an explicit offset; fractions to the millisecond (what is stored is what was sent)
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-](\d{2}):(\d{2}))$/i;

const isCalendarDay = (y: number, m: number, d: number): boolean => {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
};

/** A YYYY-MM-DD calendar day from 1900-01-01 to 2299-12-31, else 400 `invalid_request` naming `field`. */
export function calendarDay(field: string, raw: string): string {
  const m = DATE.exec(raw);
  if (!m || !isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3])) || raw < FIRST_DAY || raw > LAST_DAY) {
    throw new ApiError('invalid_request', `${field} must be a calendar date YYYY-MM-DD from ${FIRST_DAY} to ${LAST_DAY}.`);
  }
  return raw;
}

/** An RFC 3339 instant with an offset (`Z` or ±hh:mm), e.g. 2026-03-29T01:30:00+01:00. */
export function instant(field: string, raw: string): Date {
  const invalid = () =>
    new ApiError(
      'invalid_request',
      `${field} must be an RFC 3339 date-time with an offset, e.g. 2026-03-29T14:30:00+02:00 or 2026-03-29T12:30:00Z, from ${FIRST_DAY} to ${LAST_DAY}.`,
    );
  const m = DATETIME.exec(raw);
  if (!m) throw invalid();
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (!isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3])) || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59)
    throw invalid();
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw invalid();
  const utcDay = at.toISOString().slice(0, 10);
  if (utcDay < FIRST_DAY || utcDay > LAST_DAY) throw invalid();
  return at;
}

/** Exactly one of `date` / `datetime`, or (with `optional`) neither: null. */
export function momentOf(date: string | undefined, datetime: string | undefined, optional: boolean): AnnotationMoment | null {
  if (date !== undefined && datetime !== undefined) {
    throw new ApiError('invalid_request', 'An annotation is pinned to a whole day (date) or to an instant (datetime): send one of them, not both.');
  }
  if (date !== undefined) return { day: calendarDay('date', date), at: null };
  if (datetime !== undefined) return { day: null, at: instant('datetime', datetime) };
  if (optional) return null;
  throw new ApiError('invalid_request', 'date (YYYY-MM-DD, a day in the site’s time zone) or datetime (RFC 3339 with an offset) is required.');
}

/** The note's text: trimmed, 1..280 characters (code points, so an emoji counts once), one line, nothing invisible. */
export function annotationText(raw: string | undefined): string {
  const text = (raw ?? '').trim();
  if (text === '') throw new ApiError('invalid_request', 'text is required.');
  const max = LIMITS.annotationTextLength;
  if ([...text].length > max) throw new ApiError('invalid_request', `text must be at most ${max} characters after trimming.`);
  if (CONTROL.test(text)) throw new ApiError('invalid_request', 'text must not contain line breaks, control or invisible formatting characters.');
  return text;
}
