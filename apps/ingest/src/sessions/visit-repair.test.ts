import { describe, expect, it } from 'vitest';
import { emptySessionAttributes } from '@sightline/events-schema';
import { sessionRow, type LiveSession } from './sessionizer.js';
import { repairVisit, takeCorrection, type VisitFromEvents } from './visit-repair.js';

const ATTRIBUTES = {
  ...emptySessionAttributes(),
  source: 'Google',
  channel: 'Organic Search',
  country: 'DE',
  region: 'DE-BE',
  city: 2950159,
  browser: 'Firefox',
  browser_version: '120.0',
  os: 'GNU/Linux',
  device: 'Desktop',
  screen: 'Laptop',
};
const T0 = Date.parse('2025-03-10T12:00:00.000Z');
const min = (n: number) => T0 + n * 60_000;

const stored: LiveSession = {
  site_id: 1,
  session_id: '77',
  visitor_id: '5',
  marker: '',
  start: min(0),
  last: min(2),
  version: 2,
  hostname: 'example.com',
  entry_page: '/a',
  exit_page: '/b',
  exit_hostname: 'example.com',
  pageviews: 2,
  events: 2,
  engagement_ms: 1000,
  attributes: ATTRIBUTES,
  import_id: 0,
};
const fromEvents = (over: Partial<VisitFromEvents> = {}): VisitFromEvents => ({
  site_id: 1,
  session_id: '77',
  visitor_id: '5',
  events: 2,
  pageviews: 2,
  engagement_ms: 1000,
  first: min(0),
  last: min(2),
  hostname: 'example.com',
  entry_page: '/a',
  exit_page: '/b',
  exit_hostname: 'example.com',
  attributes: ATTRIBUTES,
  ...over,
});

describe('repairVisit', () => {
  it('leaves a visit that holds all its stored events alone', () => {
    expect(repairVisit(stored, fromEvents())).toBeUndefined();
  });

  it('never lowers a visit whose events reach past the look-back (fewer counted than stored)', () => {
    expect(repairVisit(stored, fromEvents({ events: 1, pageviews: 1, engagement_ms: 0, first: min(1) }))).toBeUndefined();
  });

  it('adds the lost tail: counts, last event and exit page from the events; a new version that cancels the stored one', () => {
    const repaired = repairVisit(
      stored,
      fromEvents({ events: 4, pageviews: 3, engagement_ms: 6000, last: min(5), exit_page: '/d', exit_hostname: 'shop.example.com' }),
    );
    expect(repaired).toMatchObject({
      version: 3,
      events: 4,
      pageviews: 3,
      engagement_ms: 6000,
      start: min(0),
      last: min(5),
      entry_page: '/a',
      exit_page: '/d',
      exit_hostname: 'shop.example.com',
    });
    expect(repaired?.unwritten).toEqual({ cancels: stored });
  });

  it('adds lost engagement alone without moving the visit', () => {
    const repaired = repairVisit(stored, fromEvents({ engagement_ms: 4000 }));
    expect(repaired).toMatchObject({ version: 3, events: 2, engagement_ms: 4000, last: min(2), exit_page: '/b' });
  });

  it('makes a visit none of whose rows were stored from its events, with nothing to cancel', () => {
    const repaired = repairVisit(
      undefined,
      fromEvents({ session_id: '88', events: 1, pageviews: 1, engagement_ms: 0, first: min(3), last: min(3), entry_page: '/x', exit_page: '/x' }),
    );
    expect(repaired).toMatchObject({
      session_id: '88',
      version: 1,
      start: min(3),
      last: min(3),
      pageviews: 1,
      events: 1,
      entry_page: '/x',
      exit_page: '/x',
      attributes: ATTRIBUTES,
    });
    expect(repaired?.unwritten).toEqual({ cancels: null });
  });
});

describe('takeCorrection', () => {
  it('writes a repair once: the stored version cancelled, the repaired one added', () => {
    const repaired = repairVisit(stored, fromEvents({ events: 3, pageviews: 3, last: min(4), exit_page: '/c' }))!;
    const versions = takeCorrection(repaired);
    expect(versions).toEqual([
      { session: stored, sign: -1 },
      { session: repaired, sign: 1 },
    ]);
    const rows = versions.map((v) => sessionRow(v.session, v.sign));
    expect(rows.map((r) => [r.sign, r.version, r.pageviews, r.duration])).toEqual([
      [-1, 2, 2, 120],
      [1, 3, 3, 240],
    ]);
    expect(takeCorrection(repaired)).toEqual([]);
  });

  it('writes only the new version of a visit that was never stored, and nothing for an ordinary visit', () => {
    const repaired = repairVisit(undefined, fromEvents())!;
    expect(takeCorrection(repaired).map((r) => r.sign)).toEqual([1]);
    expect(takeCorrection({ ...stored })).toEqual([]);
  });
});
