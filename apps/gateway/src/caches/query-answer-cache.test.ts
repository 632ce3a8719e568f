import { describe, expect, it } from 'vitest';
import { QueryAnswerCache, canonicalJson, heapBytes, localDate, type AnswerKey } from './query-answer-cache.js';

const NOON = Date.parse('2026-03-10T12:00:00Z');
const answerFor = (range: [string, string], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ results: [], has_import: false, query: { site_id: 1, date_range: range }, ...extra });
const key = (over: Partial<AnswerKey> = {}): AnswerKey => ({
  siteId: 1,
  kind: 'query',
  timezone: 'UTC',
  weekStart: 1,
  goals: [],
  request: { metrics: ['visitors'], date_range: '7d' },
  ...over,
});

function rig(options: Partial<ConstructorParameters<typeof QueryAnswerCache>[0]> = {}) {
  let now = NOON;
  const cache = new QueryAnswerCache({ maxBytes: 1_000_000, liveTtlMs: 10_000, closedTtlMs: 3_600_000, closedAfterMs: 3_600_000, now: () => now, ...options });
  return { cache, advance: (ms: number) => void (now += ms) };
}

/** a load that resolves when told, counting its calls */
function deferredLoads(answerJson: string) {
  const calls: Array<(value: string) => void> = [];
  const load = () => new Promise<string>((resolve) => calls.push(resolve));
  return { load, calls, finish: () => calls.forEach((resolve) => resolve(answerJson)) };
}

describe('QueryAnswerCache', () => {
  it('answers identical concurrent queries with one load', async () => {
    const { cache } = rig();
    const answer = answerFor(['2026-03-04', '2026-03-10']);
    const loads = deferredLoads(answer);
    const waiting = Array.from({ length: 50 }, () => cache.answer(key(), loads.load));
    expect(loads.calls).toHaveLength(1);
    loads.finish();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set([answer]));
    expect(cache.stats).toEqual({ loads: 1, hits: 0, joined: 49 });
  });

  it('keeps a window reaching today for the live TTL, a closed one for the closed TTL', async () => {
    const { cache, advance } = rig();
    let loads = 0;
    const load = (range: [string, string]) => async () => ((loads += 1), answerFor(range));
    const live = key({ request: { date_range: 'today' } });
    const closed = key({ request: { date_range: ['2026-03-01', '2026-03-07'] } });
    await cache.answer(live, load(['2026-03-10', '2026-03-10']));
    await cache.answer(closed, load(['2026-03-01', '2026-03-07']));
    advance(9_999);
    await cache.answer(live, load(['2026-03-10', '2026-03-10']));
    await cache.answer(closed, load(['2026-03-01', '2026-03-07']));
    expect(loads).toBe(2);
    advance(2);
    await cache.answer(live, load(['2026-03-10', '2026-03-10']));
    expect(loads).toBe(3);
    advance(3_600_000 - 10_002); // 1 ms before the closed answer's hour ends
    await cache.answer(closed, load(['2026-03-01', '2026-03-07']));
    expect(loads).toBe(3);
    advance(1);
    await cache.answer(closed, load(['2026-03-01', '2026-03-07']));
    expect(loads).toBe(4);
  });

  it('treats yesterday as live within the hour after midnight, in the site’s time zone, and realtime as live', async () => {
    // 00:30 in Berlin (UTC+1 in March): yesterday's sessions may still be running
    const { cache } = rig();
    const at = (iso: string) =>
      new QueryAnswerCache({ maxBytes: 1_000_000, liveTtlMs: 10, closedTtlMs: 1_000_000, closedAfterMs: 3_600_000, now: () => Date.parse(iso) });
    const yesterday = answerFor(['2026-03-09', '2026-03-09']);
    for (const [iso, timezone, cachedLong] of [
      ['2026-03-09T23:30:00Z', 'Europe/Berlin', false], // 00:30 local on the 10th
      ['2026-03-10T00:30:00Z', 'Europe/Berlin', true], // 01:30 local
      ['2026-03-10T00:30:00Z', 'UTC', false],
      ['2026-03-10T01:00:01Z', 'UTC', true],
      ['2026-03-10T04:30:00Z', 'America/New_York', false], // 00:30 EDT on the 10th
      ['2026-03-10T05:00:00Z', 'America/New_York', true], // 01:00 EDT: yesterday ended an hour ago
    ] as const) {
      const c = at(iso);
      let loads = 0;
      const k = key({ timezone, request: { date_range: ['2026-03-09', '2026-03-09'] } });
      await c.answer(k, async () => ((loads += 1), yesterday));
      expect(c['closed'](yesterday, timezone), `${iso} ${timezone}`).toBe(cachedLong);
      expect(loads).toBe(1);
    }
    const realtime = JSON.stringify({ results: [], query: { date_range: ['2026-03-10T11:30:00.000Z', '2026-03-10T12:00:00.000Z'] } });
    expect(cache['closed'](realtime, 'UTC')).toBe(false);
  });

  it('never keeps an error; a failed load fails every caller waiting on it', async () => {
    const { cache } = rig();
    let loads = 0;
    const failing = async () => {
      loads += 1;
      throw new Error('query_too_large');
    };
    const both = await Promise.allSettled([cache.answer(key(), failing), cache.answer(key(), failing)]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(cache.answer(key(), failing)).rejects.toThrow('query_too_large');
    expect(loads).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('keys by site, kind, timezone, week start, goals, request and the site’s date; object key order does not matter', async () => {
    const { cache, advance } = rig();
    let loads = 0;
    const load = async () => ((loads += 1), answerFor(['2026-03-01', '2026-03-07']));
    const base = key({ request: { metrics: ['visitors'], date_range: '7d', filters: [{ field: 'page', operator: 'is', values: ['/'] }] } });
    await cache.answer(base, load);
    await cache.answer({ ...base, request: { filters: [{ values: ['/'], operator: 'is', field: 'page' }], date_range: '7d', metrics: ['visitors'] } }, load);
    expect(loads).toBe(1);
    const variants: AnswerKey[] = [
      { ...base, siteId: 2 },
      { ...base, kind: 'props' },
      { ...base, timezone: 'Europe/Berlin' },
      { ...base, weekStart: 0 },
      { ...base, goals: [['Signup', 'signup', null]] },
      { ...base, request: { metrics: ['visitors'], date_range: '7d', filters: [{ field: 'page', operator: 'is', values: ['/a'] }] } },
      { ...base, request: { metrics: ['visitors'], date_range: '7d' } },
    ];
    for (const variant of variants) await cache.answer(variant, load);
    expect(loads).toBe(1 + variants.length);
    // tomorrow `7d` is another window
    advance(86_400_000);
    await cache.answer(base, load);
    expect(loads).toBe(2 + variants.length);
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(localDate(Date.parse('2026-03-09T23:30:00Z'), 'Europe/Berlin')).toBe('2026-03-10');
  });

  it('forgetSite drops the site’s answers only, and a load running during the news keeps nothing', async () => {
    const { cache } = rig();
    let loads = 0;
    const load = async () => ((loads += 1), answerFor(['2026-03-01', '2026-03-07']));
    await cache.answer(key({ siteId: 1 }), load);
    await cache.answer(key({ siteId: 11 }), load);
    cache.forgetSite(1);
    await cache.answer(key({ siteId: 1 }), load);
    await cache.answer(key({ siteId: 11 }), load);
    expect(loads).toBe(3);

    const slow = deferredLoads(answerFor(['2026-03-01', '2026-03-07']));
    const before = cache.answer(key({ siteId: 2 }), slow.load);
    cache.forgetSite(2);
    // a query after the news does not join the one that started before it
    const after = cache.answer(key({ siteId: 2 }), slow.load);
    expect(slow.calls).toHaveLength(2);
    slow.finish();
    await Promise.all([before, after]);
    await cache.answer(key({ siteId: 2 }), slow.load);
    expect(slow.calls).toHaveLength(2);
  });

  it('holds at most maxBytes, least recently used out first', async () => {
    const answer = answerFor(['2026-03-01', '2026-03-07'], { pad: 'x'.repeat(900) });
    const { cache } = rig({ maxBytes: 4_000 });
    let loads = 0;
    const load = async () => ((loads += 1), answer);
    for (const siteId of [1, 2, 3]) await cache.answer(key({ siteId }), load);
    await cache.answer(key({ siteId: 1 }), load); // 1 is now the most recent
    await cache.answer(key({ siteId: 4 }), load); // evicts 2
    expect(cache.size).toBeLessThanOrEqual(4_000);
    expect(loads).toBe(4);
    await cache.answer(key({ siteId: 1 }), load);
    expect(loads).toBe(4);
    await cache.answer(key({ siteId: 2 }), load);
    expect(loads).toBe(5);
  });

  it("counts an answer by the heap it holds: two bytes a character once one is beyond Latin-1, and each entry's bookkeeping", async () => {
    expect(heapBytes('/caf\u00e9')).toBe(5); // é is Latin-1: one byte each, though UTF-8 takes 6
    expect(heapBytes('/\u0141\u00f3d\u017a')).toBe(10); // Łódź: two bytes each for all five (UTF-8: 8)
    expect(heapBytes('/\u{1F600}')).toBe(6); // an emoji is two UTF-16 units (UTF-8: 5)
    const { cache } = rig();
    const latin = answerFor(['2026-03-01', '2026-03-07'], { page: '/caf\u00e9' });
    await cache.answer(key({ siteId: 1 }), async () => latin);
    const keyLength = cache.size - latin.length - 160;
    expect(keyLength).toBeGreaterThan(0);
    const wide = answerFor(['2026-03-01', '2026-03-07'], { page: '/\u0141\u00f3d\u017a' });
    await cache.answer(key({ siteId: 2 }), async () => wide);
    // same key length (site 1 and 2 are one digit), the answer counted twice its length
    expect(cache.size).toBe(latin.length + 160 + keyLength + 2 * wide.length + 160 + keyLength);
  });

  it('keeps fewer tiny answers than their bytes alone would allow: the per-entry cost counts', async () => {
    const tiny = answerFor(['2026-03-01', '2026-03-07']);
    const probe = rig().cache;
    await probe.answer(key({ siteId: 101 }), async () => tiny);
    const perEntry = probe.size; // sites 101–200: keys of one length
    expect(perEntry).toBeGreaterThan(tiny.length + 160);
    const { cache } = rig({ maxBytes: 50 * perEntry });
    const load = async () => tiny;
    for (let siteId = 101; siteId <= 200; siteId++) await cache.answer(key({ siteId }), load);
    expect(cache.size).toBe(50 * perEntry);
    // newest first: the 50 newest are held (counting characters only, all 100 would fit)
    for (let siteId = 200; siteId > 100; siteId--) await cache.answer(key({ siteId }), load);
    expect(cache.stats.hits).toBe(50);
  });

  it('with maxBytes 0 neither caches nor joins', async () => {
    const { cache } = rig({ maxBytes: 0 });
    const loads = deferredLoads(answerFor(['2026-03-01', '2026-03-07']));
    const waiting = [cache.answer(key(), loads.load), cache.answer(key(), loads.load)];
    loads.finish();
    await Promise.all(waiting);
    expect(loads.calls).toHaveLength(2);
    expect(cache.enabled).toBe(false);
  });
});
