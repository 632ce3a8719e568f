import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { seedVisits, type SeedVisit } from '@sightline/events-schema/testing';
import { decodeFunnelReport, encodeFunnelReportRequest, parseFunnelQuery, type FunnelStep } from '@sightline/query-contract';
import { expectApiError, makeTempDir } from '@sightline/testkit';
import { handleFunnelReport } from '../query-service.js';
import type { ReportSite } from '../query/report-site.js';
import { runFunnelReport } from './run-funnel.js';

const INGEST_MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ingest/clickhouse');

/*
 * Funnel F: 1 page /pricing → 2 page /signup/* (wildcard) → 3 custom event Purchase.
 * Site 1 (UTC), week 2026-06-01..07. Hand-computed levels per visit (deepest step in order):
 *   A  V1 06-01 DE: /pricing 10:00:00, /about 10:00:30, /signup/form/step-1 10:01:00, Purchase 10:03:00 → 3 (60 s, 120 s)
 *   B  V2 06-01 DE: /signup/x 09:00, /pricing 09:01, Purchase 09:02 → 1 (signup only before pricing: out of order)
 *   C  V3 06-02 DE: /pricing 12:00, /pricing 12:05, /signup/a 12:10, /signup/b 12:20 → 2 (repeated steps; 600 s from the first /pricing)
 *   D1 V4 06-03 08:00 /pricing → 1;  D2 V4 06-03 14:00 /signup/a, Purchase → 0 (steps 2-3 in a second visit do not count)
 *   E  V5 06-04: /pricing 10:00, /signup 10:01 (not /signup/*), Purchase 10:02 → 1
 *   F  V6 06-05 imported (import 3): /pricing 11:00:00, /signup/z 11:00:20, Purchase 11:01:00 → 3 (20 s, 40 s)
 *   G  V7 06-06: /pricing 10:00, Purchase 10:05 → 1
 *   H  V8 06-06 15:00:00.000: /pricing and /signup/q at the same millisecond → 1 (a step comes strictly later)
 *   I  V1 06-07 FR: /pricing 09:00, /signup/b 09:10 → 2 (600 s; V1 counts once per step)
 *   J  V9 05-31 23:59 /pricing, 06-01 00:01 /signup/c (one visit across midnight) → 0 in the week (its first step is before it)
 * Steps: 8 (V1..V8), 3 (V1, V3, V6), 2 (V1, V6). Medians 1→2 over visits A 60, C 600, F 20, I 600 → (60+600)/2 = 330 s;
 * 2→3 over A 120, F 40 → 80 s. Site 2 holds a whole funnel the site-1 reports must not see.
 */
const visits: SeedVisit[] = [
  {
    visitor: 1,
    attrs: { country: 'DE' },
    events: [
      { at: '2026-06-01 10:00:00', path: '/pricing' },
      { at: '2026-06-01 10:00:30', path: '/about' },
      { at: '2026-06-01 10:01:00', path: '/signup/form/step-1' },
      { at: '2026-06-01 10:03:00', name: 'Purchase', path: '/signup/form/step-1' },
    ],
  },
  {
    visitor: 2,
    attrs: { country: 'DE' },
    events: [
      { at: '2026-06-01 09:00:00', path: '/signup/x' },
      { at: '2026-06-01 09:01:00', path: '/pricing' },
      { at: '2026-06-01 09:02:00', name: 'Purchase' },
    ],
  },
  {
    visitor: 3,
    attrs: { country: 'DE' },
    events: [
      { at: '2026-06-02 12:00:00', path: '/pricing' },
      { at: '2026-06-02 12:05:00', path: '/pricing' },
      { at: '2026-06-02 12:10:00', path: '/signup/a' },
      { at: '2026-06-02 12:20:00', path: '/signup/b' },
    ],
  },
  { visitor: 4, attrs: { country: 'US' }, events: [{ at: '2026-06-03 08:00:00', path: '/pricing' }] },
  {
    visitor: 4,
    attrs: { country: 'US' },
    events: [
      { at: '2026-06-03 14:00:00', path: '/signup/a' },
      { at: '2026-06-03 14:01:00', name: 'Purchase' },
    ],
  },
  {
    visitor: 5,
    events: [
      { at: '2026-06-04 10:00:00', path: '/pricing' },
      { at: '2026-06-04 10:01:00', path: '/signup' },
      { at: '2026-06-04 10:02:00', name: 'Purchase' },
    ],
  },
  {
    visitor: 6,
    importId: 3,
    events: [
      { at: '2026-06-05 11:00:00', path: '/pricing' },
      { at: '2026-06-05 11:00:20', path: '/signup/z' },
      { at: '2026-06-05 11:01:00', name: 'Purchase' },
    ],
  },
  {
    visitor: 7,
    events: [
      { at: '2026-06-06 10:00:00', path: '/pricing' },
      { at: '2026-06-06 10:05:00', name: 'Purchase' },
    ],
  },
  {
    visitor: 8,
    events: [
      { at: '2026-06-06 15:00:00.000', path: '/pricing' },
      { at: '2026-06-06 15:00:00.000', path: '/signup/q' },
    ],
  },
  {
    visitor: 1,
    attrs: { country: 'FR' },
    events: [
      { at: '2026-06-07 09:00:00', path: '/pricing' },
      { at: '2026-06-07 09:10:00', path: '/signup/b' },
    ],
  },
  {
    visitor: 9,
    events: [
      { at: '2026-05-31 23:59:00', path: '/pricing' },
      { at: '2026-06-01 00:01:00', path: '/signup/c' },
    ],
  },
  {
    visitor: 1,
    site: 2,
    events: [
      { at: '2026-06-01 10:00:00', path: '/pricing' },
      { at: '2026-06-01 10:01:00', path: '/signup/a' },
      { at: '2026-06-01 10:02:00', name: 'Purchase' },
    ],
  },
];

/*
 * Sites 7 and 8: 400 generated visits each (a seeded generator: 150 visitors, 1-8 events
 * each from the funnel's pages, near-misses and Purchase) for the oracle tests. Site 7's
 * events are often at the same millisecond or 1 ms apart: a plain JavaScript walk of each
 * visit must agree with the report. Site 8 has no two events at one instant: there
 * ClickHouse's own windowFunnel(…, 'strict_increase') must agree too (with ties it
 * differs: a repeated step-1 event at a step-2 event's millisecond restarts its chain,
 * hiding the chain from the earlier step 1 that the report counts).
 */
function generatedVisits(site: 7 | 8): SeedVisit[] {
  const gaps = site === 7 ? [0, 1, 1000, 30_000, 120_000] : [1000, 2000, 30_000, 120_000, 600_000];
  let state = 20_261_127;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const kinds = [{ path: '/pricing' }, { path: '/signup/a' }, { path: '/signup' }, { path: '/other' }, { name: 'Purchase', path: '/x' }];
  return Array.from({ length: 400 }, (_, v) => {
    const start = Date.parse('2026-07-01T00:00:00Z') + Math.floor(next() * 2 * 86_400) * 1000;
    let at = start;
    const events = Array.from({ length: 1 + Math.floor(next() * 8) }, () => {
      at += gaps[Math.floor(next() * gaps.length)]!;
      return { at: new Date(at).toISOString(), ...kinds[Math.floor(next() * kinds.length)]! };
    });
    return { visitor: 1000 + Math.floor(next() * 150), site, session: site * 1000 + v, events };
  });
}

/** The greedy chain of one visit in JavaScript: each step's first time strictly after the previous one's. */
function chainTimes(events: SeedVisit['events'], steps: FunnelStep[]): number[] {
  const matches = (e: SeedVisit['events'][number], step: FunnelStep) =>
    step.event_name !== undefined
      ? e.name === step.event_name
      : (e.name ?? 'pageview') === 'pageview' && new RegExp(`^${step.page_path!.replace(/\*/g, '.*')}$`).test(e.path ?? '/');
  const times: number[] = [];
  for (const step of steps) {
    const after = times.at(-1) ?? -Infinity;
    const hits = events
      .filter((e) => matches(e, step))
      .map((e) => Date.parse(e.at))
      .filter((t) => t > after);
    if (!hits.length) break;
    times.push(Math.min(...hits));
  }
  return times;
}

const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const STEPS: FunnelStep[] = [
  { goal_id: 11, name: 'Pricing', page_path: '/pricing' },
  { goal_id: 12, name: 'Signup form', page_path: '/signup/*' },
  { goal_id: 13, name: 'Purchase', event_name: 'Purchase' },
];
const funnel = { funnel_id: 5, name: 'Checkout', steps: STEPS };
const site: ReportSite = { siteId: 1, timezone: 'UTC', weekStart: 1, goals: [], nowMs: Date.parse('2026-06-10T12:00:00Z') };
const WEEK = '2026-06-01,2026-06-07';

describe('funnel report on chDB', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  const report = async (query: { date_range?: string; filters?: string; compare?: string }, context: Partial<ReportSite> = {}, steps = STEPS) =>
    runFunnelReport(events, { funnel: { ...funnel, steps }, ...parseFunnelQuery({ date_range: WEEK, ...query }) }, { ...site, ...context });
  const figures = async (...args: Parameters<typeof report>) =>
    (await report(...args)).steps.map((s) => [s.visitors, s.conversion_rate, s.step_conversion_rate, s.dropoff, s.median_seconds_to_next]);

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'funnel_test' });
    await runEventMigrations(events, { dir: INGEST_MIGRATIONS });
    await seedVisits(events, visits, { siteId: 1 });
    await seedVisits(events, [...generatedVisits(7), ...generatedVisits(8)], { siteId: 7 });
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  it('counts visitors who reach each step in order within one visit, with rates, drop-off and median times', async () => {
    const answer = await report({});
    expect(answer).toEqual({
      funnel_id: 5,
      name: 'Checkout',
      steps: [
        { step: 1, goal_id: 11, name: 'Pricing', visitors: 8, conversion_rate: 100, step_conversion_rate: 100, dropoff: 5, median_seconds_to_next: 330 },
        { step: 2, goal_id: 12, name: 'Signup form', visitors: 3, conversion_rate: 37.5, step_conversion_rate: 37.5, dropoff: 1, median_seconds_to_next: 80 },
        { step: 3, goal_id: 13, name: 'Purchase', visitors: 2, conversion_rate: 25, step_conversion_rate: 66.67, dropoff: null, median_seconds_to_next: null },
      ],
      query: { site_id: 1, funnel_id: 5, filters: [], date_range: ['2026-06-01', '2026-06-07'] },
    });
  });

  it('a step reached only in a second visit does not count', async () => {
    // 06-03 holds V4's two visits only: /pricing, then /signup/a + Purchase in the next visit
    expect(await figures({ date_range: '2026-06-03,2026-06-03' })).toEqual([
      [1, 100, 100, 1, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]);
  });

  it('out-of-order steps, a near-miss of the wildcard and a same-millisecond step do not advance', async () => {
    expect(await figures({ date_range: '2026-06-01,2026-06-01' }, { siteId: 1 })).toEqual([
      [2, 100, 100, 1, 60],
      [1, 50, 50, 0, 120],
      [1, 50, 100, null, null],
    ]); // A 3, B 1
    expect(await figures({ date_range: '2026-06-04,2026-06-04' })).toEqual([
      [1, 100, 100, 1, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]); // E: /signup is not /signup/*
    expect(await figures({ date_range: '2026-06-06,2026-06-06' })).toEqual([
      [2, 100, 100, 2, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]); // G, H
  });

  it('repeated steps: the chain starts at the first step and goes to the next step’s first time after it', async () => {
    expect(await figures({ date_range: '2026-06-02,2026-06-02' })).toEqual([
      [1, 100, 100, 0, 600],
      [1, 100, 100, 1, null],
      [0, 0, 0, null, null],
    ]);
  });

  it('imported events count like live ones', async () => {
    expect(await figures({ date_range: '2026-06-05,2026-06-05' })).toEqual([
      [1, 100, 100, 0, 20],
      [1, 100, 100, 0, 40],
      [1, 100, 100, null, null],
    ]);
  });

  it('a visit filter keeps the matching visits; an event filter keeps visits with a matching event', async () => {
    // country DE: A, B, C → V1, V2, V3 | V1, V3 | V1; medians A 60 + C 600 → 330, A 120
    expect(await figures({ filters: JSON.stringify([{ field: 'country', operator: 'is', values: ['DE'] }]) })).toEqual([
      [3, 100, 100, 1, 330],
      [2, 66.67, 66.67, 1, 120],
      [1, 33.33, 50, null, null],
    ]);
    // only visit A has a pageview of /about (an event filter never removes the visit's step events)
    expect(await figures({ filters: JSON.stringify([{ field: 'page', operator: 'is', values: ['/about'] }]) })).toEqual([
      [1, 100, 100, 0, 60],
      [1, 100, 100, 0, 120],
      [1, 100, 100, null, null],
    ]);
    // the event filter on the custom event: visits A, B, D2, E, F, G fired Purchase → V1, V2, V5, V6, V7 reach step 1 (D2 has no /pricing)
    expect(await figures({ filters: JSON.stringify([{ field: 'event', operator: 'is', values: ['Purchase'] }]) })).toEqual([
      [5, 100, 100, 3, 40],
      [2, 40, 40, 0, 80],
      [2, 40, 100, null, null],
    ]);
  });

  it('compare: the previous window’s figures and each change (percent for counts and times, difference for rates)', async () => {
    const answer = await report({ compare: 'previous_period' });
    expect(answer.query.compare).toEqual(['2026-05-25', '2026-05-31']);
    // previous week: only J's /pricing (05-31 23:59) → 1, 0, 0
    expect(answer.steps.map((s) => s.comparison)).toEqual([
      {
        metrics: { visitors: 1, conversion_rate: 100, step_conversion_rate: 100, dropoff: 1, median_seconds_to_next: null },
        change: { visitors: 700, conversion_rate: 0, step_conversion_rate: 0, dropoff: 400, median_seconds_to_next: null },
      },
      {
        metrics: { visitors: 0, conversion_rate: 0, step_conversion_rate: 0, dropoff: 0, median_seconds_to_next: null },
        change: { visitors: null, conversion_rate: 37.5, step_conversion_rate: 37.5, dropoff: null, median_seconds_to_next: null },
      },
      {
        metrics: { visitors: 0, conversion_rate: 0, step_conversion_rate: null, dropoff: null, median_seconds_to_next: null },
        change: { visitors: null, conversion_rate: 25, step_conversion_rate: null, dropoff: null, median_seconds_to_next: null },
      },
    ]);
  });

  it('an empty window: no visitors, rates null, drop-off 0', async () => {
    const answer = await report({ date_range: '2025-01-01,2025-01-07' });
    expect(answer.steps.map((s) => [s.visitors, s.conversion_rate, s.step_conversion_rate, s.dropoff, s.median_seconds_to_next])).toEqual([
      [0, null, null, 0, null],
      [0, null, null, 0, null],
      [0, null, null, null, null],
    ]);
  });

  it('windows are the site’s local days', async () => {
    // UTC 05-31: J's /pricing only (its /signup/c is on 06-01)
    expect(await figures({ date_range: '2026-05-31,2026-05-31' })).toEqual([
      [1, 100, 100, 1, null],
      [0, 0, 0, 0, null],
      [0, 0, null, null, null],
    ]);
    // Tokyo 06-01 = 05-31 15:00Z..06-01 15:00Z: J (2, 120 s), A (3, 60 s), B (1) → 3, 2, 1; median 1→2 (120+60)/2 = 90
    expect(await figures({ date_range: '2026-06-01,2026-06-01' }, { timezone: 'Asia/Tokyo' })).toEqual([
      [3, 100, 100, 1, 90],
      [2, 66.67, 66.67, 1, 120],
      [1, 33.33, 50, null, null],
    ]);
    // New York 06-01 = 06-01 04:00Z..06-02 04:00Z: A, B (J's 00:01 /signup/c is 05-31 local) → as the UTC day
    expect(await figures({ date_range: '2026-06-01,2026-06-01' }, { timezone: 'America/New_York' })).toEqual([
      [2, 100, 100, 1, 60],
      [1, 50, 50, 0, 120],
      [1, 50, 100, null, null],
    ]);
  });

  it('a custom event as the first step, and a two-step funnel', async () => {
    // Purchase → /signup/*: D2's Purchase (14:01) follows its /signup/a (14:00), no; nobody signs up after buying
    const steps: FunnelStep[] = [STEPS[2]!, STEPS[1]!];
    expect(await figures({}, {}, steps)).toEqual([
      [6, 100, 100, 6, null],
      [0, 0, 0, null, null],
    ]);
  });

  it('the site is the one of the context: another site’s funnel is never seen', async () => {
    expect(await figures({ date_range: '2026-06-01,2026-06-01' }, { siteId: 2 })).toEqual([
      [1, 100, 100, 0, 60],
      [1, 100, 100, 0, 60],
      [1, 100, 100, null, null],
    ]);
    expect(await figures({ date_range: '2026-06-01,2026-06-01' }, { siteId: 99 })).toEqual([
      [0, null, null, 0, null],
      [0, null, null, 0, null],
      [0, null, null, null, null],
    ]);
  });

  const walkOf = (generated: SeedVisit[], steps = STEPS) => {
    const chains = generated.map((visit) => ({ visitor: visit.visitor, times: chainTimes(visit.events, steps) }));
    const reached = (n: number) => new Set(chains.filter((c) => c.times.length >= n).map((c) => c.visitor)).size;
    const medianSeconds = (n: number) => {
      const gaps = chains.filter((c) => c.times.length > n).map((c) => c.times[n]! - c.times[n - 1]!);
      return gaps.length ? Math.round(medianOf(gaps) / 1000) : null;
    };
    return { visitors: steps.map((_, i) => reached(i + 1)), medians: steps.map((_, i) => (i + 1 < steps.length ? medianSeconds(i + 1) : null)) };
  };

  it('steps one event converts together and a wildcard inside a pattern agree with the walk (ties included)', async () => {
    // /signup/a converts steps 2 and 3 at once; step 3 still needs a later event than step 2's
    const steps: FunnelStep[] = [
      { goal_id: 21, name: 'Pricing', page_path: '/pricing' },
      { goal_id: 22, name: 'Sign*', page_path: '/sign*' },
      { goal_id: 23, name: '/*/a', page_path: '/*/a' },
      { goal_id: 24, name: 'Purchase', event_name: 'Purchase' },
    ];
    for (const siteId of [7, 8] as const) {
      const answer = await report({ date_range: '2026-07-01,2026-07-02' }, { siteId }, steps);
      const walk = walkOf(generatedVisits(siteId), steps);
      expect(walk.visitors[3]).toBeGreaterThan(3); // the data reaches the last step
      expect(answer.steps.map((s) => s.visitors)).toEqual(walk.visitors);
      expect(answer.steps.map((s) => s.median_seconds_to_next)).toEqual(walk.medians);
    }
  });

  it('agrees with a JavaScript walk of each visit on 400 generated visits full of same-millisecond events', async () => {
    const answer = await report({ date_range: '2026-07-01,2026-07-02' }, { siteId: 7 });
    const walk = walkOf(generatedVisits(7));
    expect(walk.visitors[2]).toBeGreaterThan(5); // the data reaches every step
    expect(answer.steps.map((s) => s.visitors)).toEqual(walk.visitors);
    expect(answer.steps.map((s) => s.median_seconds_to_next)).toEqual(walk.medians);
  });

  it('agrees with windowFunnel (strict_increase) and the walk on 400 generated visits without ties', async () => {
    const answer = await report({ date_range: '2026-07-01,2026-07-02' }, { siteId: 8 });
    const [oracle] = await events.query<Record<string, number>>(
      `SELECT uniqExactIf(visitor_id, level >= 1) AS v1, uniqExactIf(visitor_id, level >= 2) AS v2, uniqExactIf(visitor_id, level >= 3) AS v3 FROM (
         SELECT visitor_id, windowFunnel(100000000000, 'strict_increase')(toUInt64(toUnixTimestamp64Milli(timestamp)),
           name = 'pageview' AND pathname = '/pricing', name = 'pageview' AND match(pathname, '^/signup/.*$'), name = 'Purchase') AS level
         FROM events WHERE site_id = 8 GROUP BY visitor_id, session_id)`,
    );
    const walk = walkOf(generatedVisits(8));
    expect(walk.visitors[2]).toBeGreaterThan(5);
    expect(answer.steps.map((s) => s.visitors)).toEqual([Number(oracle!.v1), Number(oracle!.v2), Number(oracle!.v3)]);
    expect(answer.steps.map((s) => s.visitors)).toEqual(walk.visitors);
    expect(answer.steps.map((s) => s.median_seconds_to_next)).toEqual(walk.medians);
  });

  it('POST /query’s codes for the window, filters and compare', async () => {
    await expectApiError(report({ date_range: '2026-06-07,2026-06-01' }), 'invalid_date_range');
    await expectApiError(report({ date_range: 'yesterday' }), 'invalid_date_range');
    await expectApiError(report({ filters: '[{"field":"nope","operator":"is","values":["x"]}]' }), 'invalid_filter');
    await expectApiError(report({ filters: 'not json' }), 'invalid_filter');
    await expectApiError(report({ filters: '{"field":"page"}' }), 'invalid_filter');
    await expectApiError(report({ compare: '2026-05-01,2026-05-03' }), 'compare_length_mismatch');
    await expectApiError(report({ compare: 'last_year' }), 'invalid_compare');
    await expectApiError(
      Promise.resolve().then(() => parseFunnelQuery({})),
      'invalid_date_range',
    );
  });

  it('the RPC: the request and answer as the contract’s bytes; a malformed funnel is refused', async () => {
    const rpcSite = { siteId: 1, timezone: 'UTC', weekStart: 1, goals: [], now: '2026-06-10T12:00:00Z' };
    const { answer } = await handleFunnelReport(events, {
      site: rpcSite,
      report: encodeFunnelReportRequest({ funnel, dateRange: ['2026-06-05', '2026-06-05'], filters: [] }),
    });
    expect(decodeFunnelReport(Buffer.from(answer).toString('utf8')).steps.map((s) => s.visitors)).toEqual([1, 1, 1]);
    const bad = (report: unknown) => handleFunnelReport(events, { site: rpcSite, report: Buffer.from(JSON.stringify(report)) });
    await expectApiError(bad({ funnel: { ...funnel, steps: [] }, date_range: '7d' }), 'invalid_request');
    await expectApiError(
      bad({ funnel: { ...funnel, steps: [{ goal_id: 1, name: 'x', event_name: 'a', page_path: '/b' }] }, date_range: '7d' }),
      'invalid_request',
    );
    await expectApiError(bad({ funnel, date_range: '7d', metrics: ['visitors'] }), 'invalid_request');
    await expectApiError(handleFunnelReport(events, { site: rpcSite, report: Buffer.from('{') }), 'invalid_request');
  });
});
