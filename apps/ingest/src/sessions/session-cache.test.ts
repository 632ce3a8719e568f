import { describe, expect, it } from 'vitest';
import type { SessionAttributes } from '@sightline/events-schema';
import { SessionCache } from './session-cache.js';
import type { LiveSession } from './sessionizer.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 5, 12);

function visit(session_id: string, visitor_id: string, last: number, marker = ''): LiveSession {
  return {
    site_id: 1,
    session_id,
    visitor_id,
    marker,
    start: last,
    last,
    version: 1,
    hostname: 'a.test',
    entry_page: '/',
    exit_page: '/',
    exit_hostname: 'a.test',
    pageviews: 1,
    events: 1,
    engagement_ms: 0,
    attributes: {} as SessionAttributes,
    import_id: 0,
  };
}

describe('SessionCache', () => {
  it('finds a visit by its visitor id, its alias and its tab marker', () => {
    const cache = new SessionCache();
    const a = visit('A', 'today', T0, 'tab1');
    cache.put(a, 'yesterday');
    expect(cache.size).toBe(1);
    expect(cache.find(1, ['today'], '', T0 + MINUTE)).toBe(a);
    expect(cache.find(1, ['yesterday'], '', T0 + MINUTE)).toBe(a);
    expect(cache.find(1, ['other'], 'tab1', T0 + MINUTE)).toBe(a);
    expect(cache.find(2, ['today'], 'tab1', T0 + MINUTE)).toBeUndefined();
    // a later state of the same visit replaces it under every key, still one visit
    const a2 = { ...a, version: 2, last: T0 + 2 * MINUTE };
    cache.put(a2, 'yesterday');
    expect(cache.size).toBe(1);
    expect(cache.find(1, ['yesterday'], '', T0 + 3 * MINUTE)).toBe(a2);
  });

  it('hands a key over to a newer visit, and counts a visit gone once it has no key left', () => {
    const cache = new SessionCache();
    cache.put(visit('A', 'v1', T0), 'v2');
    const b = visit('B', 'v3', T0 + MINUTE);
    cache.put(b, 'v2');
    expect(cache.size).toBe(2);
    expect(cache.find(1, ['v2'], '', T0 + MINUTE)).toBe(b);
    expect(cache.find(1, ['v1'], '', T0 + MINUTE)?.session_id).toBe('A');
    const c = visit('C', 'v4', T0 + 2 * MINUTE);
    cache.put(c, 'v1');
    // A lost both its keys: gone
    expect(cache.size).toBe(2);
    expect(cache.find(1, ['v1'], '', T0 + 2 * MINUTE)).toBe(c);
    // a new visit of a visitor replaces the old one under every key
    const d = visit('D', 'v3', T0 + 50 * MINUTE);
    cache.put(d, 'v3');
    expect(cache.size).toBe(2);
    expect(cache.find(1, ['v2'], '', T0 + 50 * MINUTE)).toBeUndefined();
  });

  it('expires visits idle past the 30-minute rule by event time, and drops a deleted site', () => {
    const cache = new SessionCache();
    cache.put(visit('A', 'v1', T0, 'm'), 'v1');
    cache.put({ ...visit('B', 'v2', T0 + 10 * MINUTE), site_id: 2 }, 'v2');
    expect(cache.expire()).toBe(0);
    cache.put(visit('C', 'v3', T0 + 40 * MINUTE), 'v3');
    expect(cache.expire()).toBe(1);
    expect(cache.find(1, ['v1'], 'm', T0 + 40 * MINUTE)).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.dropSite(2);
    expect(cache.size).toBe(1);
    expect(cache.find(2, ['v2'], '', T0 + 40 * MINUTE)).toBeUndefined();
    expect(cache.find(1, ['v3'], '', T0 + 40 * MINUTE)?.session_id).toBe('C');
  });
});
