import { describe, expect, it } from 'vitest';
import type { Annotation } from '../src/api/annotations.js';
import { annotationRows } from '../src/annotation-export.js';
import { bucketOf, localMinute, zonedToUtc } from '../src/state/annotation-time.js';
import { buildCsv } from '../src/csv.js';

const note = (more: Partial<Annotation>): Annotation => ({ annotation_id: 1, date: null, datetime: null, local_date: '2026-03-29', text: 't', ...more });
const DAYS = ['2026-03-27', '2026-03-28', '2026-03-29', '2026-03-30'];
const HOURS = ['2026-03-29 00:00', '2026-03-29 01:00', '2026-03-29 02:00', '2026-03-29 03:00', '2026-03-29 04:00'];
const WEEKS = ['2026-03-16', '2026-03-23', '2026-03-30'];

describe('a note on the graph', () => {
  it('a day note sits at its day, the hour bucket of its midnight, the week or month that holds it', () => {
    const day = note({ date: '2026-03-29' });
    expect(bucketOf(day, DAYS, 'Europe/Berlin')).toBe(2);
    expect(bucketOf(day, HOURS, 'Europe/Berlin')).toBe(0);
    expect(bucketOf(day, WEEKS, 'Europe/Berlin')).toBe(1);
    expect(bucketOf(day, ['2026-02-01', '2026-03-01', '2026-04-01'], 'UTC')).toBe(1);
    expect(bucketOf(note({ date: '2026-03-26', local_date: '2026-03-26' }), DAYS, 'UTC')).toBe(-1);
  });

  it('a timed note sits at its instant on the site clock, across the spring-forward', () => {
    // 01:30Z on 29 March 2026 is 03:30 CEST in Berlin (clocks jumped from 02:00 to 03:00)
    const afterSwitch = note({ datetime: '2026-03-29T01:30:00.000Z' });
    expect(localMinute(afterSwitch.datetime!, 'Europe/Berlin')).toBe('2026-03-29 03:30');
    expect(bucketOf(afterSwitch, HOURS, 'Europe/Berlin')).toBe(3);
    expect(bucketOf(afterSwitch, HOURS, 'UTC')).toBe(1);
    // 23:30Z on the 28th is already the 29th in Berlin, still the 28th in New York
    const lateUtc = note({ datetime: '2026-03-28T23:30:00.000Z', local_date: '2026-03-29' });
    expect(bucketOf(lateUtc, DAYS, 'Europe/Berlin')).toBe(2);
    expect(bucketOf(lateUtc, DAYS, 'America/New_York')).toBe(1);
  });

  it('a time typed on the site clock becomes the right instant, summer and winter', () => {
    expect(zonedToUtc('2026-03-28', '12:00', 'Europe/Berlin')).toBe('2026-03-28T11:00:00.000Z');
    expect(zonedToUtc('2026-03-29', '12:00', 'Europe/Berlin')).toBe('2026-03-29T10:00:00.000Z');
    expect(zonedToUtc('2026-10-25', '12:00', 'Europe/Berlin')).toBe('2026-10-25T11:00:00.000Z');
    expect(zonedToUtc('2026-07-01', '09:15', 'America/New_York')).toBe('2026-07-01T13:15:00.000Z');
    expect(zonedToUtc('2026-07-01', '00:00', 'Asia/Kolkata')).toBe('2026-06-30T18:30:00.000Z');
    expect(zonedToUtc('2026-07-01', '09:15', 'UTC')).toBe('2026-07-01T09:15:00.000Z');
  });

  it('annotations.csv: local day and time first, commas and quotes kept in one cell, formulas defused', () => {
    const rows = annotationRows(
      [note({ date: '2026-03-29', text: 'a, "b"' }), note({ datetime: '2026-03-29T01:30:00.000Z', text: '=1+1', author: 'o@x.test' })],
      'Europe/Berlin',
    );
    expect(buildCsv(['local_date', 'local_time', 'date', 'datetime', 'text', 'author'], rows)).toBe(
      'local_date,local_time,date,datetime,text,author\r\n2026-03-29,,2026-03-29,,"a, ""b""",\r\n2026-03-29,03:30,,2026-03-29T01:30:00.000Z,\'=1+1,o@x.test\r\n',
    );
  });
});
