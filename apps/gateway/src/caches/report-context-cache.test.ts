import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import type { commonV1 } from '@sightline/proto';
import { ReportContextCache, type PlanState, type ReportContextLoaders } from './report-context-cache.js';

const actor = (keyId: string): commonV1.Actor => ({ accountId: 7, keyId, permissions: ['stats:read'] });
const OPEN: PlanState = { reportsOpen: true, trackingActive: true };
const EXPIRED: PlanState = { reportsOpen: false, trackingActive: true };

/** Stand-ins for sites and identity that count their calls and can be switched off (a restart). */
function services(initial: { owner?: number; timezone?: string; plan?: PlanState } = {}) {
  const state = {
    owner: initial.owner ?? 7,
    timezone: initial.timezone ?? 'Europe/Paris',
    plan: initial.plan ?? OPEN,
    sitesDown: false,
    identityDown: false,
    refuse: false,
  };
  const calls = { getSite: 0, getPlan: 0, planAccounts: [] as number[], overlapping: 0 };
  // each call takes 5 ms; a call starting while the other kind is running counts as overlapping
  const running = { site: 0, plan: 0 };
  const busy = async (kind: 'site' | 'plan', other: 'site' | 'plan') => {
    if (running[other] > 0) calls.overlapping += 1;
    running[kind] += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    running[kind] -= 1;
  };
  const loaders: ReportContextLoaders = {
    getSite: async () => {
      calls.getSite += 1;
      await busy('site', 'plan');
      if (state.sitesDown) throw new ApiError('unavailable');
      if (state.refuse) throw new ApiError('unknown_site');
      return { timezone: state.timezone, weekStart: 1, ownerAccountId: state.owner };
    },
    getPlan: async (accountId) => {
      calls.getPlan += 1;
      calls.planAccounts.push(accountId);
      await busy('plan', 'site');
      if (state.identityDown) throw new ApiError('unavailable');
      return state.plan;
    },
  };
  return { state, calls, loaders };
}

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('ReportContextCache', () => {
  it('asks GetSite and GetPlan once per TTL: the reach sites confirmed is used until then', async () => {
    const time = clock();
    const cache = new ReportContextCache({ ttlMs: 5_000, staleMs: 60_000, now: time.now });
    const { calls, loaders } = services();
    expect(await cache.resolve(actor('k1'), 1, loaders)).toEqual({ site: { timezone: 'Europe/Paris', weekStart: 1, ownerAccountId: 7 }, plan: OPEN });
    time.advance(4_999);
    expect(await cache.resolve(actor('k1'), 1, loaders)).toEqual({ site: { timezone: 'Europe/Paris', weekStart: 1, ownerAccountId: 7 }, plan: OPEN });
    expect(calls).toMatchObject({ getSite: 1, getPlan: 1 });
    // another key, or another site, is its own reach
    await cache.resolve(actor('k2'), 1, loaders);
    expect(calls).toMatchObject({ getSite: 2, getPlan: 1 });
    time.advance(1);
    await cache.resolve(actor('k1'), 1, loaders);
    expect(calls).toMatchObject({ getSite: 3, getPlan: 2 });
  });

  it('asks sites again at once after news: member removal, revoked key, site deleted or changed', async () => {
    const time = clock();
    const cache = new ReportContextCache({ ttlMs: 60_000, staleMs: 60_000, now: time.now });
    const { state, calls, loaders } = services();
    for (const news of [() => cache.forgetSiteReach(1), () => cache.forgetKey('k1'), () => cache.forgetSite(1)]) {
      state.refuse = false;
      await cache.resolve(actor('k1'), 1, loaders);
      const before = calls.getSite;
      news();
      state.refuse = true;
      await expect(cache.resolve(actor('k1'), 1, loaders)).rejects.toMatchObject({ code: 'unknown_site' });
      expect(calls.getSite).toBe(before + 1);
      // a refusal is never kept: the next request asks again
      await expect(cache.resolve(actor('k1'), 1, loaders)).rejects.toMatchObject({ code: 'unknown_site' });
      expect(calls.getSite).toBe(before + 2);
    }
    // news about another key or site leaves this reach alone
    state.refuse = false;
    await cache.resolve(actor('k1'), 1, loaders);
    cache.forgetKey('k2');
    cache.forgetSiteReach(2);
    const before = calls.getSite;
    await cache.resolve(actor('k1'), 1, loaders);
    expect(calls.getSite).toBe(before);
  });

  it('does not keep a confirmation that was in flight when news dropped the reach', async () => {
    const cache = new ReportContextCache({ ttlMs: 60_000, staleMs: 60_000 });
    const { state, calls, loaders } = services();
    // the member is removed while GetSite (which still saw the membership) is out
    const inFlight = cache.resolve(actor('k1'), 1, loaders);
    cache.forgetSiteReach(1);
    await inFlight;
    state.refuse = true;
    await expect(cache.resolve(actor('k1'), 1, loaders)).rejects.toMatchObject({ code: 'unknown_site' });
    expect(calls.getSite).toBe(2);
  });

  it('with TTL 0 asks GetSite every time', async () => {
    const cache = new ReportContextCache({ ttlMs: 0, staleMs: 60_000 });
    const { calls, loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    await cache.resolve(actor('k1'), 1, loaders);
    expect(calls.getSite).toBe(2);
  });

  it('runs GetPlan beside GetSite once the owner is known, after it on the very first request', async () => {
    const time = clock();
    const cache = new ReportContextCache({ ttlMs: 0, staleMs: 60_000, now: time.now });
    const { calls, loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    expect(calls.overlapping).toBe(0);
    await cache.resolve(actor('k1'), 1, loaders);
    expect(calls).toMatchObject({ getSite: 2, getPlan: 2, overlapping: 1 });
  });

  it('asks the plan of the new owner when ownership moved since the parallel call started', async () => {
    const cache = new ReportContextCache({ ttlMs: 0, staleMs: 60_000 });
    const { state, calls, loaders } = services({ owner: 7 });
    await cache.resolve(actor('k1'), 1, loaders);
    state.owner = 9;
    const answer = await cache.resolve(actor('k1'), 1, loaders);
    expect(answer.site.ownerAccountId).toBe(9);
    expect(calls.planAccounts).toEqual([7, 7, 9]);
  });

  it('with TTL 0 sees a plan change at the next request', async () => {
    const cache = new ReportContextCache({ ttlMs: 0, staleMs: 60_000 });
    const { state, loaders } = services();
    expect((await cache.resolve(actor('k1'), 1, loaders)).plan).toEqual(OPEN);
    state.plan = EXPIRED;
    expect((await cache.resolve(actor('k1'), 1, loaders)).plan).toEqual(EXPIRED);
  });

  it('forgetPlan (a subscription change) drops the plan before its TTL', async () => {
    const cache = new ReportContextCache({ ttlMs: 60_000, staleMs: 60_000 });
    const { state, loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    state.plan = EXPIRED;
    expect((await cache.resolve(actor('k1'), 1, loaders)).plan).toEqual(OPEN);
    cache.forgetPlan(7);
    expect((await cache.resolve(actor('k1'), 1, loaders)).plan).toEqual(EXPIRED);
  });

  it('serves the last confirmed site and plan while sites and identity are unavailable, for staleMs only', async () => {
    const time = clock();
    const cache = new ReportContextCache({ ttlMs: 1_000, staleMs: 30_000, now: time.now });
    const { state, loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    state.sitesDown = true;
    state.identityDown = true;
    time.advance(29_000);
    expect(await cache.resolve(actor('k1'), 1, loaders)).toEqual({ site: { timezone: 'Europe/Paris', weekStart: 1, ownerAccountId: 7 }, plan: OPEN });
    expect(cache.staleAnswers).toBe(2);
    time.advance(2_000);
    await expect(cache.resolve(actor('k1'), 1, loaders)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('never lends one key’s reach to another key during an outage', async () => {
    const cache = new ReportContextCache({ ttlMs: 1_000, staleMs: 30_000 });
    const { state, loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    state.sitesDown = true;
    await expect(cache.resolve(actor('k2'), 1, loaders)).rejects.toMatchObject({ code: 'unavailable' });
    await expect(cache.resolve(actor('k1'), 2, loaders)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('a member removal, a revoked key, a refusal or site news end the stale reach', async () => {
    const time = clock();
    const cache = new ReportContextCache({ ttlMs: 1_000, staleMs: 30_000, now: time.now });
    const { state, loaders } = services();
    const outage = async (forget: () => void) => {
      state.sitesDown = false;
      await cache.resolve(actor('k1'), 1, loaders);
      forget();
      state.sitesDown = true;
      time.advance(1_000); // past the TTL: sites is asked, and is down
      return cache.resolve(actor('k1'), 1, loaders);
    };
    await expect(outage(() => undefined)).resolves.toMatchObject({ plan: OPEN });
    await expect(outage(() => cache.forgetSiteReach(1))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(outage(() => cache.forgetKey('k1'))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(outage(() => cache.forgetSite(1))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(outage(() => cache.forgetKey('k2'))).resolves.toMatchObject({ plan: OPEN });
    // sites refused the key (membership gone) once the TTL was over: that refusal, not an old reach, is the answer afterwards
    state.sitesDown = false;
    state.refuse = true;
    time.advance(1_000);
    await expect(cache.resolve(actor('k1'), 1, loaders)).rejects.toMatchObject({ code: 'unknown_site' });
    state.refuse = false;
    state.sitesDown = true;
    await expect(cache.resolve(actor('k1'), 1, loaders)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('site news drops the site info: a new timezone is used at the next request even during an outage of identity', async () => {
    const cache = new ReportContextCache({ ttlMs: 60_000, staleMs: 60_000 });
    const { state, loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    state.timezone = 'Asia/Tokyo';
    cache.forgetSite(1);
    state.identityDown = true;
    expect((await cache.resolve(actor('k1'), 1, loaders)).site.timezone).toBe('Asia/Tokyo');
  });

  it('does not hide errors other than unavailable behind a cached plan', async () => {
    const cache = new ReportContextCache({ ttlMs: 0, staleMs: 60_000 });
    const { loaders } = services();
    await cache.resolve(actor('k1'), 1, loaders);
    const failing: ReportContextLoaders = { ...loaders, getPlan: async () => Promise.reject(new ApiError('internal')) };
    await expect(cache.resolve(actor('k1'), 1, failing)).rejects.toMatchObject({ code: 'internal' });
  });
});
