import type { Annotation } from '../api/annotations.js';

const partsIn = (ms: number, timezone: string) => {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? '0');
  return { y: get('year'), m: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') };
};

/** `YYYY-MM-DD HH:MM` of an instant on the site's clock. */
export function localMinute(iso: string, timezone: string): string {
  const p = partsIn(Date.parse(iso), timezone);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${p.y}-${two(p.m)}-${two(p.d)} ${two(p.h)}:${two(p.mi)}`;
}

/** A note's place on the site's clock: its day at 00:00, or its instant's local minute. */
export function noteMinute(note: Annotation, timezone: string): string {
  return note.datetime ? localMinute(note.datetime, timezone) : `${note.local_date} 00:00`;
}

/** How the page shows a note's moment: the day, or the day and the local time. */
export function noteWhen(note: Annotation, timezone: string): string {
  return note.datetime ? localMinute(note.datetime, timezone) : note.local_date;
}

/**
 * The bucket of the graph a note belongs to: the last one starting at or before it.
 * Labels are the API's: `YYYY-MM-DD` (day, week, month: a bucket starts at its label)
 * or `YYYY-MM-DD HH:MM…` (hour, minute). -1 before the first bucket.
 */
export function bucketOf(note: Annotation, labels: readonly string[], timezone: string): number {
  const minute = noteMinute(note, timezone);
  let index = -1;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    const comparable = label.length === 10 ? label : label.slice(0, 16);
    if (comparable <= minute.slice(0, comparable.length)) index = i;
  }
  return index;
}

/**
 * The instant (UTC ISO) a site-local date and time names. Two passes of "how far is
 * the zone from UTC then" settle DST changes; a time skipped by a spring-forward
 * lands an hour later, as clocks do.
 */
export function zonedToUtc(date: string, time: string, timezone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const wanted = Date.UTC(y, m - 1, d, h, mi);
  let guess = wanted;
  for (let pass = 0; pass < 2; pass++) {
    const p = partsIn(guess, timezone);
    const shown = Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s);
    guess += wanted - shown;
  }
  return new Date(guess).toISOString();
}
