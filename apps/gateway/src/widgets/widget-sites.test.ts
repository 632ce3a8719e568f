import { describe, expect, it } from 'vitest';
import { ApiError, isApiError } from '@sightline/errors';
import type { sitesV1 } from '@sightline/proto';
import { WidgetSites, type WidgetSiteLoaders } from './widget-sites.js';

const site = (siteId: number, ownerAccountId = 7): sitesV1.Site => ({
  siteId,
  ownerAccountId,
  timezone: 'Europe/Berlin',
  weekStart: 1,
  name: 'https://example.org',
  hash: 'h',
  hobby: false,
  scriptUrl: '',
  snippet: '',
  trackingKey: 't',
  createdAt: '',
});

function loaders(sites: Record<string, sitesV1.Site>) {
  const calls = { siteByKey: 0, getPlan: 0 };
  const l: WidgetSiteLoaders = {
    siteByKey: async (key) => {
      calls.siteByKey += 1;
      const found = sites[key];
      if (!found) throw new ApiError('unknown_site', 'No such site. GET /sites lists the sites this key reaches.');
      return found;
    },
    getPlan: async () => {
      calls.getPlan += 1;
      return { reportsOpen: true, trackingActive: true };
    },
  };
  return { l, calls };
}

describe('WidgetSites', () => {
  it('keeps a key’s site and plan for the TTL, one load for lookups arriving together', async () => {
    let now = 0;
    const cache = new WidgetSites(5_000, () => now);
    const { l, calls } = loaders({ wk_a: site(1) });
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.resolve('wk_a', l)));
    expect(found[0]).toEqual({
      site: { siteId: 1, timezone: 'Europe/Berlin', weekStart: 1, goals: [] },
      ownerAccountId: 7,
      plan: { reportsOpen: true, trackingActive: true },
    });
    expect(calls).toEqual({ siteByKey: 1, getPlan: 1 });
    now = 4_999;
    await cache.resolve('wk_a', l);
    expect(calls.siteByKey).toBe(1);
    now = 5_000;
    await cache.resolve('wk_a', l);
    expect(calls.siteByKey).toBe(2);
  });

  it('answers one unknown_site wording for any key that names nothing, and keeps none of them', async () => {
    const cache = new WidgetSites(5_000, () => 0);
    const { l, calls } = loaders({});
    for (let i = 0; i < 2; i += 1) {
      const error = await cache.resolve('wk_gone', l).catch((e: unknown) => e);
      expect(isApiError(error) && [error.code, error.message]).toEqual(['unknown_site', 'This widget key names no site (rotated, or the site was deleted).']);
    }
    expect(calls.siteByKey).toBe(2);
  });

  it('forgets a site (rotation, deletion) or an owner (plan) at once, and keeps nothing a load started before the news', async () => {
    const cache = new WidgetSites(60_000, () => 0);
    const sites: Record<string, sitesV1.Site> = { wk_a: site(1, 7), wk_b: site(2, 8) };
    const { l, calls } = loaders(sites);
    await cache.resolve('wk_a', l);
    await cache.resolve('wk_b', l);
    delete sites.wk_a;
    cache.forgetSite(1);
    await expect(cache.resolve('wk_a', l)).rejects.toMatchObject({ code: 'unknown_site' });
    await cache.resolve('wk_b', l);
    expect(calls.siteByKey).toBe(3);
    cache.forgetAccount(8);
    await cache.resolve('wk_b', l);
    expect(calls.siteByKey).toBe(4);

    let release!: () => void;
    const slow: WidgetSiteLoaders = { ...l, siteByKey: (key) => new Promise((resolve) => (release = () => resolve(sites[key]!))) };
    sites.wk_c = site(3);
    const running = cache.resolve('wk_c', slow);
    cache.forgetSite(3);
    release();
    await running;
    await cache.resolve('wk_c', l);
    expect(calls.siteByKey).toBe(5);
  });
});
