import { describe, expect, it } from 'vitest';
import { TrackingKeyCheck } from './tracking-key-check.js';

/** A sites stand-in that records each lookup; `sites` holds the keys that exist. */
function fixture(sites: Set<string>, options: { fail?: () => boolean } = {}) {
  const lookups: string[] = [];
  let clock = 0;
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const check = new TrackingKeyCheck({
    lookup: async (key) => {
      lookups.push(key);
      if (gate) await gate;
      if (options.fail?.()) throw new Error('sites unavailable');
      return sites.has(key);
    },
    knownTtlMs: 60_000,
    unknownTtlMs: 10_000,
    unverifiedTtlMs: 5_000,
    now: () => clock,
  });
  return {
    check,
    lookups,
    advance: (ms: number) => (clock += ms),
    hold: () => (gate = new Promise((resolve) => (release = resolve))),
    release: () => {
      gate = undefined;
      release?.();
    },
  };
}

describe('TrackingKeyCheck', () => {
  it('answers known and unknown keys from sites once, then from the cache until the TTL', async () => {
    const f = fixture(new Set(['siteKey01']));
    expect(await f.check.verdict('siteKey01', 'r1')).toBe('known');
    expect(await f.check.verdict('nosuchKey', 'r2')).toBe('unknown');
    expect(f.check.peek('siteKey01')).toBe('known');
    expect(f.check.peek('nosuchKey')).toBe('unknown');
    expect(f.lookups).toEqual(['siteKey01', 'nosuchKey']);
    f.advance(10_001); // unknown expired, known not yet
    expect(f.check.peek('nosuchKey')).toBeUndefined();
    expect(f.check.peek('siteKey01')).toBe('known');
    f.advance(50_000);
    expect(f.check.peek('siteKey01')).toBeUndefined();
  });

  it('makes one lookup for many concurrent events of the same key', async () => {
    const f = fixture(new Set(['siteKey01']));
    f.hold();
    const waiting = Array.from({ length: 20 }, (_, i) => f.check.verdict('siteKey01', `r${i}`));
    f.release();
    expect(await Promise.all(waiting)).toEqual(Array(20).fill('known'));
    expect(f.lookups).toEqual(['siteKey01']);
  });

  it('fails open when sites cannot answer, and asks again after the short unverified TTL', async () => {
    let down = true;
    const f = fixture(new Set(), { fail: () => down });
    expect(await f.check.verdict('anyKey0001', 'r1')).toBe('known');
    expect(f.check.peek('anyKey0001')).toBe('known');
    f.advance(5_001);
    down = false;
    expect(await f.check.verdict('anyKey0001', 'r2')).toBe('unknown');
    expect(f.lookups).toEqual(['anyKey0001', 'anyKey0001']);
  });

  it('forget (site deleted) drops the entry, and a load running meanwhile is not kept', async () => {
    const sites = new Set(['siteKey01']);
    const f = fixture(sites);
    expect(await f.check.verdict('siteKey01', 'r1')).toBe('known');
    sites.delete('siteKey01');
    f.check.forget('siteKey01');
    expect(f.check.peek('siteKey01')).toBeUndefined();
    expect(await f.check.verdict('siteKey01', 'r2')).toBe('unknown');

    sites.add('siteKey02');
    f.hold();
    const running = f.check.verdict('siteKey02', 'r3');
    f.check.forget('siteKey02');
    f.release();
    expect(await running).toBe('known');
    expect(f.check.peek('siteKey02')).toBeUndefined();
  });
});
