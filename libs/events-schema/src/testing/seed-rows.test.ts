import { describe, expect, it } from 'vitest';
import { buildSeedRows } from './seed-rows.js';

describe('buildSeedRows', () => {
  it('writes every event with its session’s attributes and each session update as −1 old / +1 new', () => {
    const rows = buildSeedRows(
      [
        {
          visitor: 7,
          attrs: { source: 'Google', country: 'DE' },
          events: [
            { at: '2026-06-01 10:05:00', name: 'Signup', path: '/b' },
            { at: '2026-06-01 10:00:00', path: '/a' },
            { at: '2026-06-01 10:06:00', name: 'engagement', path: '/b', engagementMs: 4000, scroll: 50 },
            { at: '2026-06-01 10:07:00', path: '/c' },
          ],
        },
      ],
      { siteId: 3 },
    );
    expect(rows.events.map((e) => [e.timestamp, e.name, e.pathname, e.source, e.country, e.session_id])).toEqual([
      ['2026-06-01 10:00:00.000', 'pageview', '/a', 'Google', 'DE', '1'],
      ['2026-06-01 10:05:00.000', 'Signup', '/b', 'Google', 'DE', '1'],
      ['2026-06-01 10:06:00.000', 'engagement', '/b', 'Google', 'DE', '1'],
      ['2026-06-01 10:07:00.000', 'pageview', '/c', 'Google', 'DE', '1'],
    ]);
    // versions: after /a (bounce), after Signup, after engagement (no change but engagement), after /c
    const live = rows.sessions.reduce((sum, s) => sum + s.sign, 0);
    expect(live).toBe(1);
    const last = rows.sessions.at(-1)!;
    expect(last).toMatchObject({
      sign: 1,
      version: 4,
      entry_page: '/a',
      exit_page: '/c',
      pageviews: 2,
      events: 3,
      is_bounce: 0,
      duration: 420,
      engagement_ms: 4000,
      source: 'Google',
      site_id: 3,
    });
    expect(rows.sessions[0]).toMatchObject({ sign: 1, version: 1, is_bounce: 1, duration: 0 });
    expect(rows.sessions[1]).toMatchObject({ sign: -1, version: 1 });
  });

  it('drops an engagement that has no session yet', () => {
    const rows = buildSeedRows([{ visitor: 1, events: [{ at: '2026-06-01 10:00:00', name: 'engagement' }] }], { siteId: 1 });
    expect(rows).toEqual({ events: [], sessions: [] });
  });
});
