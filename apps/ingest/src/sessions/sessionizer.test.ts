import { describe, expect, it } from 'vitest';
import { emptySessionAttributes } from '@sightline/events-schema';
import { applyEvent, sessionizeVisitor, sessionRow, type LiveSession } from './sessionizer.js';
import type { SessionAttributes, SessionEvent } from './session-event.js';

const T0 = Date.parse('2025-03-10T10:00:00.000Z');
const MIN = 60_000;

function attrs(source: string): SessionAttributes {
  return {
    ...emptySessionAttributes(),
    referrer: source === '' ? '' : `https://${source}/`,
    source,
    channel: source === '' ? 'Direct' : 'Referral',
    country: 'DE',
    region: 'DE-BE',
    city: 2950159,
    browser: 'Firefox',
    browser_version: '120.0',
    os: 'GNU/Linux',
    device: 'Desktop',
    screen: 'Laptop',
  };
}

function ev(name: string, at: number, path = '/', extra: Partial<SessionEvent> = {}): SessionEvent {
  return {
    site_id: 7,
    at,
    name,
    visitor_id: '111',
    marker: '',
    hostname: 'example.com',
    pathname: path,
    prop_keys: [],
    prop_values: [],
    engagement_ms: 0,
    scroll_depth: 255,
    status_code: 0,
    import_id: 0,
    attributes: attrs('news.ycombinator.com'),
    ...extra,
  };
}

/** The final +1 row of each session, by session id. */
function finalRows(rows: ReturnType<typeof sessionizeVisitor>['sessionRows']) {
  const last = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (r.sign === 1) last.set(r.session_id, r);
  return [...last.values()];
}

describe('sessionizer: the 30-minute rule', () => {
  it('continues a visit after a gap of 30 min 59 s (30 whole minutes) and starts a new one after 31 min', () => {
    const out = sessionizeVisitor([
      ev('pageview', T0, '/a'),
      ev('pageview', T0 + 30 * MIN + 59_000, '/b'), // floor(30.98) = 30 → same visit
      ev('pageview', T0 + 30 * MIN + 59_000 + 31 * MIN, '/c'), // 31 → new visit
    ]);
    const sessions = finalRows(out.sessionRows);
    expect(sessions).toHaveLength(2);
    const [first, second] = sessions;
    expect(first).toMatchObject({ pageviews: 2, events: 2, is_bounce: 0, entry_page: '/a', exit_page: '/b', duration: 30 * 60 + 59, version: 2 });
    expect(second).toMatchObject({ pageviews: 1, events: 1, is_bounce: 1, entry_page: '/c', exit_page: '/c', duration: 0, version: 1 });
    expect(out.eventRows.map((r) => r.session_id)).toEqual([first!.session_id, first!.session_id, second!.session_id]);
  });

  it('writes the old version with sign -1 and the new with +1 on every update, so sum(sign) per visit is 1', () => {
    const out = sessionizeVisitor([ev('pageview', T0, '/a'), ev('signup', T0 + MIN), ev('pageview', T0 + 2 * MIN, '/b')]);
    expect(out.sessionRows.map((r) => [r.version, r.sign])).toEqual([
      [1, 1],
      [1, -1],
      [2, 1],
      [2, -1],
      [3, 1],
    ]);
    expect(out.sessionRows.reduce((s, r) => s + r.sign, 0)).toBe(1);
    // the -1 row repeats the state it cancels
    expect(out.sessionRows[1]).toEqual({ ...out.sessionRows[0], sign: -1 });
  });
});

describe('sessionizer: visit attributes', () => {
  it('keeps the first event’s attributes on the visit and on every event row', () => {
    const out = sessionizeVisitor([ev('pageview', T0, '/a'), ev('pageview', T0 + MIN, '/b', { attributes: attrs('google.com') })]);
    expect(finalRows(out.sessionRows)[0]).toMatchObject({ source: 'news.ycombinator.com', referrer: 'https://news.ycombinator.com/' });
    expect(out.eventRows.map((r) => r.source)).toEqual(['news.ycombinator.com', 'news.ycombinator.com']);
    expect(out.eventRows.map((r) => r.pathname)).toEqual(['/a', '/b']);
  });

  it('entry = first pageview, exit = last pageview, a custom event changes neither; duration = last − first event', () => {
    const out = sessionizeVisitor([
      ev('signup', T0, '/x'),
      ev('pageview', T0 + 10_000, '/first'),
      ev('pageview', T0 + 70_000, '/last'),
      ev('download', T0 + 95_500, '/last'),
    ]);
    expect(finalRows(out.sessionRows)[0]).toMatchObject({ entry_page: '/first', exit_page: '/last', pageviews: 2, events: 4, duration: 95, is_bounce: 0 });
  });

  it('the visit keeps its first hostname; the exit hostname is the last pageview’s (a custom event moves neither)', () => {
    const out = sessionizeVisitor([
      ev('pageview', T0, '/a', { hostname: 'example.com' }),
      ev('pageview', T0 + MIN, '/cart', { hostname: 'shop.example.com' }),
      ev('signup', T0 + 2 * MIN, '/x', { hostname: 'docs.example.com' }),
      // late: older than the last pageview, so it is not the exit
      ev('pageview', T0 + 30_000, '/late', { hostname: 'docs.example.com' }),
    ]);
    expect(finalRows(out.sessionRows)[0]).toMatchObject({ hostname: 'example.com', exit_page: '/cart', exit_hostname: 'shop.example.com' });
  });

  it('a single pageview bounces; a second non-engagement event un-bounces; engagement does not', () => {
    const bounced = sessionizeVisitor([ev('pageview', T0), ev('engagement', T0 + 20_000, '/', { engagement_ms: 15_000, scroll_depth: 80 })]);
    expect(finalRows(bounced.sessionRows)[0]).toMatchObject({ is_bounce: 1, duration: 0, events: 1, engagement_ms: 15_000 });
    const custom = sessionizeVisitor([ev('pageview', T0), ev('signup', T0 + 5_000)]);
    expect(finalRows(custom.sessionRows)[0]).toMatchObject({ is_bounce: 0, duration: 5 });
  });
});

describe('sessionizer: engagement', () => {
  it('adds engagement_ms to the visit, carries scroll depth on its own row, and never extends the visit', () => {
    const out = sessionizeVisitor([
      ev('pageview', T0, '/a'),
      ev('engagement', T0 + 25 * MIN, '/a', { engagement_ms: 40_000, scroll_depth: 60 }),
      ev('engagement', T0 + 29 * MIN, '/a', { engagement_ms: 2_000, scroll_depth: 90 }),
      // 31 min after the pageview: the engagements did not extend the visit → new one
      ev('pageview', T0 + 31 * MIN, '/b'),
    ]);
    const sessions = finalRows(out.sessionRows);
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ engagement_ms: 42_000, events: 1, is_bounce: 1, timestamp: '2025-03-10 10:00:00.000' });
    expect(out.eventRows.filter((r) => r.name === 'engagement').map((r) => [r.engagement_ms, r.scroll_depth])).toEqual([
      [40_000, 60],
      [2_000, 90],
    ]);
  });

  it('drops an engagement with no live visit and counts it', () => {
    const out = sessionizeVisitor([ev('engagement', T0, '/a', { engagement_ms: 5_000 }), ev('pageview', T0 + MIN), ev('engagement', T0 + 40 * MIN)]);
    expect(out.droppedEngagements).toBe(2);
    expect(out.eventRows.map((r) => r.name)).toEqual(['pageview']);
    expect(finalRows(out.sessionRows)).toHaveLength(1);
  });
});

describe('sessionizer: applyEvent with a visit found by another key', () => {
  it('continues a visit found under yesterday’s visitor id across midnight, keeping the visit’s visitor id', () => {
    const before = applyEvent(undefined, ev('pageview', Date.parse('2025-03-10T23:55:00Z'), '/a', { visitor_id: 'yesterday' }));
    const after = applyEvent(before.session, ev('pageview', Date.parse('2025-03-11T00:10:00Z'), '/b', { visitor_id: 'today' }));
    expect(after.session?.session_id).toBe(before.session?.session_id);
    expect(after.eventRow).toMatchObject({ visitor_id: 'yesterday', session_id: before.session?.session_id });
    expect(after.sessionVersions.map((v) => [v.sign, v.session.version])).toEqual([
      [-1, 1],
      [1, 2],
    ]);
    const last = after.sessionVersions.at(-1)!;
    expect(sessionRow(last.session, last.sign)).toMatchObject({ duration: 15 * 60, pageviews: 2 });
  });

  it('gives the same session id for the same first event (replays are deterministic)', () => {
    const a = applyEvent(undefined, ev('pageview', T0)).session as LiveSession;
    const b = applyEvent(undefined, ev('pageview', T0)).session as LiveSession;
    const c = applyEvent(undefined, ev('pageview', T0 + 1)).session as LiveSession;
    expect(a.session_id).toBe(b.session_id);
    expect(a.session_id).not.toBe(c.session_id);
    expect(BigInt(a.session_id)).toBeLessThan(2n ** 64n);
  });
});
