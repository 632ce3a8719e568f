import { describe, expect, it } from 'vitest';
import { CollectedEvent, TrackerPayload } from './collected-event.js';
import { checkCollectedEventFast, checkTrackerPayloadFast } from './payload-fast-path.js';

/** The fast path may decline (zod then decides) but never accept what zod refuses, nor return anything but zod's output. */
function sameAsZod(
  schema: { safeParse(input: unknown): { success: boolean; data?: unknown } },
  check: (input: unknown) => unknown,
  input: unknown,
): 'fast' | 'declined' {
  const zod = schema.safeParse(input);
  const fast = check(input);
  if (fast === undefined) return 'declined';
  expect(zod.success, `fast path accepted what zod refuses: ${JSON.stringify(input)}`).toBe(true);
  // byte for byte: the same keys in the same order, so the published JSON is the same
  expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
  expect(fast).toStrictEqual(zod.data);
  return 'fast';
}

const expectSameAsZod = (input: unknown) => sameAsZod(TrackerPayload, checkTrackerPayloadFast, input);
const expectCollectedSameAsZod = (input: unknown) => sameAsZod(CollectedEvent, checkCollectedEventFast, input);

const valid = { k: 'AbCdEfGh12345678', n: 'pageview', u: 'https://shop.example.net/pricing?x=1', d: 'shop.example.net' };

/** A small seeded generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('checkTrackerPayloadFast', () => {
  it('returns exactly what zod returns for the events the tracker sends', () => {
    const cases = [
      valid,
      { ...valid, r: 'https://news.example.org/', s: 'tab-1' },
      { s: 'tab-9', r: null, ...valid, p: null, e: null, sd: null, sc: null },
      { ...valid, n: 'engagement', e: 12_345, sd: 100, sc: 404 },
      { ...valid, n: 'Signup', p: { plan: 'pro', seats: 3, trial: true, '1': 'numeric key first' } },
      { ...valid, e: 0, sd: 0, sc: 100 },
      { ...valid, e: 86_400_000, sc: 599, r: '', s: '' },
      { ...valid, w: 0 },
      { ...valid, w: 1440, s: 'tab-2' },
      { ...valid, w: 100_000, sc: 200 },
      { ...valid, w: null },
      { ...valid, k: 'A'.repeat(64), n: 'x'.repeat(120), u: 'u'.repeat(2048), d: 'd'.repeat(253), r: 'r'.repeat(2048), s: 's'.repeat(64) },
      { ...valid, p: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, 'v'.repeat(256)])) },
      { ...valid, p: { ['k'.repeat(64)]: -0 } },
      // keys in another order than the schema's: the output follows the schema
      { d: valid.d, u: valid.u, sc: 200, n: valid.n, k: valid.k },
    ];
    for (const input of cases) expect(expectSameAsZod(JSON.parse(JSON.stringify(input)))).toBe('fast');
  });

  it('never accepts what zod refuses, at every bound and type', () => {
    const refused: unknown[] = [
      null,
      [],
      'text',
      42,
      {},
      { ...valid, k: 'short' },
      { ...valid, k: 'A'.repeat(65) },
      { ...valid, k: 'has-dash-123' },
      { ...valid, k: 'ÄbcdefghÄbcdefgh' },
      { ...valid, n: '' },
      { ...valid, n: 'x'.repeat(121) },
      { ...valid, u: '' },
      { ...valid, u: 'u'.repeat(2049) },
      { ...valid, d: 'd'.repeat(254) },
      { ...valid, r: 'r'.repeat(2049) },
      { ...valid, r: 5 },
      { ...valid, s: 's'.repeat(65) },
      { ...valid, e: -1 },
      { ...valid, e: 1.5 },
      { ...valid, e: 86_400_001 },
      { ...valid, e: '5' },
      { ...valid, sd: 101 },
      { ...valid, sc: 99 },
      { ...valid, sc: 600 },
      { ...valid, w: -1 },
      { ...valid, w: 100_001 },
      { ...valid, w: 375.5 },
      { ...valid, w: '375' },
      { ...valid, p: [] },
      { ...valid, p: 'x' },
      { ...valid, p: { '': 1 } },
      { ...valid, p: { ['k'.repeat(65)]: 1 } },
      { ...valid, p: { a: 'v'.repeat(257) } },
      { ...valid, p: { a: null } },
      { ...valid, p: { a: { nested: true } } },
      { ...valid, p: { a: [1] } },
      { ...valid, p: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`key${i}`, i])) },
      { ...valid, extra: 1 },
      { ...valid, k: undefined },
    ];
    for (const input of refused) {
      expect(TrackerPayload.safeParse(input).success, JSON.stringify(input)).toBe(false);
      expect(checkTrackerPayloadFast(input), JSON.stringify(input)).toBeUndefined();
    }
    // JSON.parse makes `__proto__` an own key; zod drops it from props, the fast path leaves such bodies to zod
    const proto = JSON.parse(`{"k":"${valid.k}","n":"x","u":"u","d":"d","p":{"__proto__":1}}`) as unknown;
    expect(expectSameAsZod(proto)).toBe('declined');
    expect(checkTrackerPayloadFast(JSON.parse(`{"__proto__":{},"k":"${valid.k}","n":"x","u":"u","d":"d"}`))).toBeUndefined();
  });

  it('agrees with zod on 20,000 seeded mutations of valid events', () => {
    const next = random(20261123);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const strings = [
      '',
      'a',
      'x'.repeat(64),
      'x'.repeat(65),
      'x'.repeat(120),
      'x'.repeat(121),
      'x'.repeat(253),
      'x'.repeat(254),
      'x'.repeat(256),
      'x'.repeat(257),
      'x'.repeat(2048),
      'x'.repeat(2049),
      'AbCd1234',
      'Ab-d1234',
      'é'.repeat(10),
    ];
    const numbers = [-1, 0, 1, 1.5, 99, 100, 101, 599, 600, 100_000, 100_001, 86_400_000, 86_400_001, Number.MAX_SAFE_INTEGER + 2, -0];
    const values = [...strings, ...numbers, true, false, null, [], {}, { a: 1 }];
    const fields = ['k', 'n', 'u', 'd', 'r', 'p', 'e', 'sd', 'sc', 's', 'w', 'zz'];
    let fast = 0;
    let declined = 0;
    for (let i = 0; i < 20_000; i++) {
      const input: Record<string, unknown> = { ...valid, r: 'https://ref.example/', s: 'tab', p: { plan: 'pro' } };
      const mutations = 1 + Math.floor(next() * 3);
      for (let m = 0; m < mutations; m++) {
        const field = pick(fields);
        const roll = next();
        if (roll < 0.15) delete input[field];
        else if (field === 'p' && roll < 0.6)
          input.p = Object.fromEntries(Array.from({ length: Math.floor(next() * 33) }, (_, j) => [pick([`k${j}`, '', 'x'.repeat(65)]), pick(values)]));
        else input[field] = pick(values);
      }
      if (expectSameAsZod(JSON.parse(JSON.stringify(input))) === 'fast') fast++;
      else declined++;
    }
    // both sides are exercised: a check that declined everything would prove nothing
    expect(fast).toBeGreaterThan(1_000);
    expect(declined).toBeGreaterThan(1_000);
  });
});

const collected = {
  ...valid,
  r: 'https://news.example.org/',
  s: 'tab-1',
  ts: '2026-11-26T10:00:00.000Z',
  ip: '81.2.69.142',
  ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
};

describe('checkCollectedEventFast', () => {
  it('returns exactly what zod returns for the messages the gateway publishes', () => {
    const cases = [
      collected,
      { ...collected, ip: '', ua: '' },
      { ...collected, ts: 'x'.repeat(40), ip: 'i'.repeat(64), ua: 'u'.repeat(1024) },
      { ua: collected.ua, ip: collected.ip, ts: collected.ts, ...valid, p: { plan: 'pro' }, e: null },
    ];
    for (const input of cases) expect(expectCollectedSameAsZod(JSON.parse(JSON.stringify(input)))).toBe('fast');
  });

  it('never accepts what zod refuses', () => {
    const { ts: _ts, ...withoutTs } = collected;
    const { ip: _ip, ...withoutIp } = collected;
    const { ua: _ua, ...withoutUa } = collected;
    const refused: unknown[] = [
      withoutTs,
      withoutIp,
      withoutUa,
      valid,
      { ...collected, ts: '' },
      { ...collected, ts: 'x'.repeat(41) },
      { ...collected, ip: 'i'.repeat(65) },
      { ...collected, ua: 'u'.repeat(1025) },
      { ...collected, ip: null },
      { ...collected, ua: 5 },
      { ...collected, k: 'short' },
      { ...collected, extra: 1 },
    ];
    for (const input of refused) {
      expect(CollectedEvent.safeParse(input).success, JSON.stringify(input)).toBe(false);
      expect(checkCollectedEventFast(input), JSON.stringify(input)).toBeUndefined();
    }
    // a tracker body is not a bus message, and a bus message is not a tracker body
    expect(checkTrackerPayloadFast(collected)).toBeUndefined();
  });

  it('agrees with zod on 20,000 seeded mutations of published messages', () => {
    const next = random(20261126);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const values = [
      '',
      'a',
      'x'.repeat(40),
      'x'.repeat(41),
      'x'.repeat(64),
      'x'.repeat(65),
      'x'.repeat(1024),
      'x'.repeat(1025),
      'AbCd1234',
      0,
      1.5,
      200,
      true,
      null,
      [],
      {},
    ];
    const fields = ['k', 'n', 'u', 'd', 'r', 'p', 'e', 'sd', 'sc', 's', 'w', 'ts', 'ip', 'ua', 'zz'];
    let fast = 0;
    let declined = 0;
    for (let i = 0; i < 20_000; i++) {
      const input: Record<string, unknown> = { ...collected, p: { plan: 'pro' } };
      const mutations = 1 + Math.floor(next() * 2);
      for (let m = 0; m < mutations; m++) {
        const field = pick(fields);
        if (next() < 0.15) delete input[field];
        else input[field] = pick(values);
      }
      if (expectCollectedSameAsZod(JSON.parse(JSON.stringify(input))) === 'fast') fast++;
      else declined++;
    }
    expect(fast).toBeGreaterThan(1_000);
    expect(declined).toBeGreaterThan(1_000);
  });
});
