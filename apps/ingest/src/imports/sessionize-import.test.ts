import { describe, expect, it } from 'vitest';
import { ImportRow } from '@sightline/events-schema';
import { normaliseRow } from './normalise-row.js';
import { importVisitorId } from './import-ids.js';
import { sessionizeVisitor } from './sessionize-import.js';
import type { StagedRow } from './staged-row.js';

let line = 0;
function staged(timestamp: string, name: string, pathname = '/', extra: Record<string, unknown> = {}): StagedRow {
  line += 1;
  const out = normaliseRow(ImportRow.parse({ timestamp, name, visitor_id: 'v', pathname, ...extra }), { importId: 9, siteId: 4, line }, Date.UTC(2025, 0, 1));
  if (!out.ok) throw new Error(out.reason);
  return out.row;
}

describe('sessionizeVisitor (imports → live sessionizer)', () => {
  it('splits on a gap over 30 whole minutes, writes one final +1 row per session, reports orphan engagements', () => {
    const rows = [
      staged('2024-03-01T09:00:00Z', 'engagement', '/', { engagement_ms: 50 }), // no session yet: orphan
      staged('2024-03-01T10:00:00Z', 'pageview', '/', { utm_source: 'newsletter', utm_medium: 'email' }),
      staged('2024-03-01T10:20:00Z', 'pageview', '/pricing'),
      staged('2024-03-01T10:21:00Z', 'engagement', '/pricing', { engagement_ms: 4000 }),
      staged('2024-03-01T10:50:59Z', 'signup', '/pricing'), // 30 min 59 s after 10:20 → 30 whole minutes: same visit
      staged('2024-03-01T11:22:00Z', 'pageview', '/docs'), // 31 minutes after 10:50:59: a new visit
    ];
    const out = sessionizeVisitor(rows);
    expect(out.orphans.map((r) => r.line)).toEqual([rows[0]!.line]);
    expect(out.events).toHaveLength(5);
    expect(
      out.sessions.map((s) => ({
        sign: s.sign,
        version: s.version,
        pageviews: s.pageviews,
        events: s.events,
        is_bounce: s.is_bounce,
        duration: s.duration,
        engagement_ms: s.engagement_ms,
        entry: s.entry_page,
        exit: s.exit_page,
        channel: s.channel,
      })),
    ).toEqual([
      { sign: 1, version: 1, pageviews: 2, events: 3, is_bounce: 0, duration: 3059, engagement_ms: 4000, entry: '/', exit: '/pricing', channel: 'Email' },
      { sign: 1, version: 1, pageviews: 1, events: 1, is_bounce: 1, duration: 0, engagement_ms: 0, entry: '/docs', exit: '/docs', channel: 'Direct' },
    ]);
    // every event carries its visit's attributes and the hashed imported visitor id
    expect(out.events.slice(0, 4).every((e) => e.channel === 'Email' && e.import_id === 9)).toBe(true);
    expect(new Set(out.events.map((e) => e.visitor_id))).toEqual(new Set([importVisitorId(4, 'v')]));
    // deterministic: the same rows give the same ids (a re-run writes identical rows)
    expect(sessionizeVisitor(rows).sessions.map((s) => s.session_id)).toEqual(out.sessions.map((s) => s.session_id));
  });

  it('imported visitor ids depend on the site and the import’s visitor id only', () => {
    expect(importVisitorId(4, 'v')).toBe(importVisitorId(4, 'v'));
    expect(importVisitorId(4, 'v')).not.toBe(importVisitorId(5, 'v'));
    expect(importVisitorId(4, 'v')).toMatch(/^\d{1,20}$/);
  });
});
