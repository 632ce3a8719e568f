import { describe, expect, it } from 'vitest';
import { WidgetAnswerCache } from './widget-answer-cache.js';

describe('WidgetAnswerCache', () => {
  it('loads once per (site, type, window) and TTL; viewers arriving during a load join it', async () => {
    let now = 0;
    const cache = new WidgetAnswerCache(15_000, () => now);
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const load = async () => {
      loads += 1;
      await gate;
      return { n: loads };
    };
    const together = Array.from({ length: 50 }, () => cache.answer(1, 'countries', '30d', load));
    release();
    expect(new Set((await Promise.all(together)).map((a) => a.n))).toEqual(new Set([1]));
    expect(await cache.answer(1, 'countries', '30d', load)).toEqual({ n: 1 });
    // another window, type or site is another answer
    await cache.answer(1, 'countries', '7d', load);
    await cache.answer(1, 'map', '30d', load);
    await cache.answer(2, 'countries', '30d', load);
    expect(loads).toBe(4);
    expect(cache.stats).toEqual({ loads: 4, hits: 1, joined: 49 });
    now = 14_999;
    expect(await cache.answer(1, 'countries', '30d', load)).toEqual({ n: 1 });
    now = 15_000;
    expect(await cache.answer(1, 'countries', '30d', load)).toEqual({ n: 5 });
  });

  it('keeps no error, and nothing a load in flight returns after the site’s news', async () => {
    const cache = new WidgetAnswerCache(60_000, () => 0);
    await expect(cache.answer(1, 'globe', '30m', () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(await cache.answer(1, 'globe', '30m', async () => 'fresh')).toBe('fresh');
    let release!: (value: string) => void;
    const running = cache.answer(3, 'globe', '30m', () => new Promise<string>((resolve) => (release = resolve)));
    cache.forgetSite(3);
    release('before the news');
    expect(await running).toBe('before the news');
    expect(await cache.answer(3, 'globe', '30m', async () => 'after')).toBe('after');
    // forgetting one site leaves the others
    cache.forgetSite(3);
    expect(await cache.answer(1, 'globe', '30m', async () => 'not asked')).toBe('fresh');
  });
});
