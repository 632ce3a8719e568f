import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyCache, type Principal } from './key-cache.js';

const principal = (keyId: string): Principal => ({ keyId, accountId: 7, permissions: ['stats:read'], expiresAt: '2027-01-01T00:00:00Z' }) as Principal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyCache', () => {
  it('keys entries by the SHA-256 of the token, never the token itself', () => {
    const token = 'sl_exampleTokenForTheCacheTest';
    const expected = createHash('sha256').update(token).digest('base64url');
    expect(KeyCache.hashToken(token)).toBe(expected);
    expect(KeyCache.hashToken(token)).not.toContain('sl_');
    expect(KeyCache.hashToken(token)).toHaveLength(43); // 32 bytes in base64url
  });

  it('returns what was stored until the TTL passes', async () => {
    const cache = new KeyCache(80);
    cache.set('h1', principal('key_a'));
    expect(cache.get('h1')?.keyId).toBe('key_a');
    expect(cache.get('h2')).toBeUndefined();
    await sleep(160);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('forgetKey drops every token of the key (old and rotated) and no other key', () => {
    const cache = new KeyCache(60_000);
    cache.set('old-secret', principal('key_a'));
    cache.set('new-secret', principal('key_a'));
    cache.set('other', principal('key_b'));
    cache.forgetKey('key_a');
    expect(cache.get('old-secret')).toBeUndefined();
    expect(cache.get('new-secret')).toBeUndefined();
    expect(cache.get('other')?.keyId).toBe('key_b');
    cache.forgetKey('key_unknown'); // nothing cached: no effect, no error
    expect(cache.get('other')?.keyId).toBe('key_b');
  });

  it('evicts the least recently used entry beyond its size, and forgetting the evicted key still works', () => {
    const cache = new KeyCache(60_000, 2);
    cache.set('h1', principal('key_1'));
    cache.set('h2', principal('key_2'));
    cache.get('h1'); // h2 is now the least recently used
    cache.set('h3', principal('key_3'));
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h1')?.keyId).toBe('key_1');
    expect(cache.get('h3')?.keyId).toBe('key_3');
    cache.forgetKey('key_2');
    cache.forgetKey('key_1');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h3')?.keyId).toBe('key_3');
  });

  it('a TTL of 0 still caches for at least a millisecond instead of forever', async () => {
    const cache = new KeyCache(0);
    cache.set('h1', principal('key_a'));
    await sleep(20);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('keeps a verified key for outages only, up to staleMs, and forgets it on revocation even after the fresh entry expired', async () => {
    const cache = new KeyCache(20, 100, 200);
    cache.set('h1', principal('key_a'));
    cache.set('h2', principal('key_b'));
    await sleep(60);
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.getWhileUnavailable('h1')?.keyId).toBe('key_a');
    cache.forgetKey('key_a');
    expect(cache.getWhileUnavailable('h1')).toBeUndefined();
    expect(cache.getWhileUnavailable('h2')?.keyId).toBe('key_b');
    await sleep(260);
    expect(cache.getWhileUnavailable('h2')).toBeUndefined();
    expect(new KeyCache(1_000).getWhileUnavailable('h1')).toBeUndefined();
  });
});
