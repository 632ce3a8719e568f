import fc from 'fast-check';
import { siteTimezones } from '@sightline/runtime';

/**
 * Property-test inputs for the date step: every timezone a site can have (the
 * sites service accepts exactly `siteTimezones()`) and any `YYYY-MM-DD` text.
 */
export const SITE_TIMEZONES: readonly string[] = [...siteTimezones()];

const digits = (width: number) => fc.integer({ min: 0, max: 10 ** width - 1 }).map((n) => String(n).padStart(width, '0'));

/** Dates at the edges of what the parser, Intl and the events store can hold. */
export const EDGE_DATES = [
  '0000-01-01',
  '0000-02-29',
  '0999-12-31',
  '1000-01-01',
  '1899-12-31',
  '1900-01-01',
  '1900-01-02',
  '1970-01-01',
  '2000-02-29',
  '2149-06-06',
  '2299-12-30',
  '2299-12-31',
  '2300-01-01',
  '9999-12-31',
] as const;

const calendarDate = (min: string, max: string) =>
  fc.date({ min: new Date(`${min}T00:00:00Z`), max: new Date(`${max}T00:00:00Z`), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

/**
 * Any YYYY-MM-DD text (month 13 and day 31 of February included), calendar dates of
 * years 0000–9999, dates in and around the span a window may cover, and the edges.
 */
export const dateText: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(digits(4), digits(2), digits(2)).map(([year, month, day]) => `${year}-${month}-${day}`),
  calendarDate('0000-01-01', '9999-12-31'),
  calendarDate('1890-01-01', '2310-12-31'),
  fc.constantFrom(...EDGE_DATES),
);

const startAndLength = (starts: fc.Arbitrary<string>) =>
  fc.tuple(starts, fc.integer({ min: 0, max: 400 })).map(([start, days]): [string, string] => {
    const startMs = Date.parse(`${start}T00:00:00Z`);
    if (!Number.isFinite(startMs)) return [start, start];
    const end = new Date(startMs + days * 86_400_000);
    return [start, Number.isFinite(end.getTime()) ? end.toISOString().slice(0, 10) : start];
  });

/**
 * [start, end]: two independent dates, or a start and an end 0 to 400 days later;
 * half of them start in or near the span a window may cover, so many pairs resolve.
 */
export const datePair: fc.Arbitrary<[string, string]> = fc.oneof(fc.tuple(dateText, dateText), startAndLength(dateText), {
  weight: 2,
  arbitrary: startAndLength(calendarDate('1899-01-01', '2300-12-31')),
});

export const siteTimezone: fc.Arbitrary<string> = fc.constantFrom(...SITE_TIMEZONES);
