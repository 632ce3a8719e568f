import { describe, expect, it } from 'vitest';
import { emptySessionAttributes, type SessionRow } from '@sightline/events-schema';
import { applyEvent, sessionRow, type LiveSession, type SessionVersion } from '../sessions/sessionizer.js';
import { BatchSessionVersions } from './batch-session-versions.js';

const attributes = { ...emptySessionAttributes(), channel: 'Direct', device: 'Desktop' };

/** Session versions of a visitor's events, as the sessionizer writes them. */
function visitRows(visitor: string, times: number[], names: string[], initial?: LiveSession): { rows: SessionVersion[]; live: LiveSession | undefined } {
  let live = initial;
  const rows: SessionVersion[] = [];
  times.forEach((at, i) => {
    const step = applyEvent(live, {
      site_id: 3,
      at,
      name: names[i] ?? 'pageview',
      visitor_id: visitor,
      marker: '',
      hostname: 'example.com',
      pathname: `/p${i}`,
      prop_keys: [],
      prop_values: [],
      engagement_ms: names[i] === 'engagement' ? 1500 : 0,
      scroll_depth: 255,
      status_code: 0,
      import_id: 0,
      attributes,
    });
    live = step.session;
    rows.push(...step.sessionVersions);
  });
  return { rows, live };
}

/** What VersionedCollapsingMergeTree keeps: per (session, version) the rows whose signs do not cancel. */
function collapsed(rows: readonly SessionRow[]): Map<string, { net: number; row: SessionRow }> {
  const out = new Map<string, { net: number; row: SessionRow }>();
  for (const row of rows) {
    const key = `${row.site_id}:${row.session_id}:${row.version}`;
    const entry = out.get(key) ?? { net: 0, row };
    entry.net += row.sign;
    if (row.sign === 1) entry.row = row;
    out.set(key, entry);
  }
  for (const [key, entry] of out) if (entry.net === 0) out.delete(key);
  return out;
}

describe('BatchSessionVersions', () => {
  it('writes far fewer rows and collapses to the same table as the raw versions, across batches', () => {
    const t0 = Date.UTC(2026, 10, 23, 10);
    const minute = 60_000;
    // two batches: visit A starts in the first and continues in the second; B lives in the second only; C starts over after 31 minutes
    const a1 = visitRows('11', [t0, t0 + minute, t0 + 2 * minute], ['pageview', 'engagement', 'Signup']);
    const a2 = visitRows('11', [t0 + 3 * minute, t0 + 4 * minute], ['pageview', 'pageview'], a1.live);
    const b = visitRows('22', [t0 + minute, t0 + 2 * minute, t0 + 3 * minute, t0 + 4 * minute], []);
    const c = visitRows('33', [t0, t0 + 31 * minute + 1, t0 + 32 * minute], []);
    const raw = [
      [...a1.rows, ...c.rows],
      [...a2.rows, ...b.rows],
    ];

    const written: SessionRow[] = [];
    for (const batchRows of raw) {
      const batch = new BatchSessionVersions();
      for (const row of batchRows) batch.add(row);
      const rows = batch.rows();
      expect(batch.size).toBe(rows.length);
      written.push(...rows);
    }
    expect(collapsed(written)).toEqual(collapsed(raw.flat().map((v) => sessionRow(v.session, v.sign))));
    // A: 1 + 1 (batch 1 final; batch 2 cancels it and writes its final), B: 1, C: 2 visits
    expect(written.filter((r) => r.sign === 1)).toHaveLength(4 + 1 - 1 + 1);
    expect(written.filter((r) => r.sign === -1)).toHaveLength(1);
    expect(raw.flat().length).toBe(5 + 4 + 7 + 4);
  });

  it('keeps rows that pair with nothing in the batch, and a repeated +1 of one version', () => {
    const { rows } = visitRows('44', [1_000, 2_000], []);
    const [first, cancel, second] = rows as [SessionVersion, SessionVersion, SessionVersion];
    const batch = new BatchSessionVersions();
    batch.add(cancel);
    batch.add(first);
    batch.add(first);
    batch.add(second);
    // the -1 came before its +1: nothing to pair it with yet, so all four stay
    expect(batch.rows()).toEqual([cancel, first, first, second].map((v) => sessionRow(v.session, v.sign)));
    expect(batch.size).toBe(4);
  });
});
