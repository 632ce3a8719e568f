import { describe, expect, it } from 'vitest';
import { collectedEventShard, collectedSubject, fnv1a32 } from './collected-shard.js';

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes of non-ASCII text (the ASCII fast path must not change shards)', () => {
    // reference values from a byte-wise FNV-1a over UTF-8 (é = C3 A9, € = E2 82 AC)
    expect(fnv1a32('é')).toBe(0x1e9de8c1);
    expect(fnv1a32('aé€x')).toBe(0xbd15c2dc);
  });
});

describe('collectedEventShard', () => {
  const visitor = { k: 'siteKey01', ip: '192.0.2.1', ua: 'UA/1' };

  it('hashes key + session marker when there is one, else key + IP + UA, modulo the shard count', () => {
    expect(collectedEventShard({ ...visitor, s: 'tab-1' }, 8)).toBe(fnv1a32('siteKey01\ns:tab-1') % 8);
    expect(collectedEventShard(visitor, 8)).toBe(fnv1a32('siteKey01\nv:192.0.2.1\nUA/1') % 8);
    expect(collectedEventShard(visitor, 1)).toBe(0);
  });

  it('with a session marker, IP and UA do not matter (a phone switching networks stays on its shard)', () => {
    const a = collectedEventShard({ ...visitor, s: 'tab-9' }, 16);
    expect(collectedEventShard({ k: 'siteKey01', ip: '198.51.100.4', ua: 'Other/2', s: 'tab-9' }, 16)).toBe(a);
  });

  it('spreads visitors over every shard', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i++) counts[collectedEventShard({ ...visitor, s: `tab-${i}` }, 8)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it('refuses a shard count or shard out of range', () => {
    expect(() => collectedEventShard(visitor, 0)).toThrow(RangeError);
    expect(() => collectedEventShard(visitor, 1.5)).toThrow(RangeError);
    expect(() => collectedSubject(-1)).toThrow(RangeError);
    expect(collectedSubject(5)).toBe('events.collected.5');
  });
});
