import { ApiError } from '@sightline/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS, SUBJECTS, type Subscription } from '@sightline/bus';
import type { commonV1 } from '@sightline/proto';
import { ReportContextCache, type ReportContextLoaders } from './report-context-cache.js';
import { reportContextNews, subscribeCacheNews } from './cache-news.js';

const actor: commonV1.Actor = { accountId: 7, keyId: 'k1', permissions: ['stats:read'] };

/** Sites and identity as seen by the cache; `down` simulates their restart. */
function services() {
  const state = { down: false, timezone: 'UTC', planCalls: 0 };
  const loaders: ReportContextLoaders = {
    getSite: async () => {
      if (state.down) throw new ApiError('unavailable');
      return { timezone: state.timezone, weekStart: 1, ownerAccountId: 7 };
    },
    getPlan: async () => {
      state.planCalls += 1;
      return { reportsOpen: true, trackingActive: true };
    },
  };
  return { state, loaders };
}

describe('report context news over the bus', () => {
  let subscriptions: Subscription[] = [];
  afterEach(async () => {
    await Promise.allSettled(subscriptions.map((s) => s.stop()));
  });

  async function start() {
    const bus = new LocalBus();
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    const cache = new ReportContextCache({ ttlMs: 60_000, staleMs: 60_000 });
    subscriptions = await subscribeCacheNews(bus, [reportContextNews(cache)]);
    const { state, loaders } = services();
    await cache.resolve(actor, 1, loaders);
    // during an outage the cached reach answers; after news about the site it must not
    const answersDuringOutage = async () => {
      state.down = true;
      try {
        await cache.resolve(actor, 1, loaders);
        return true;
      } catch {
        return false;
      } finally {
        state.down = false;
        await cache.resolve(actor, 1, loaders);
      }
    };
    return { bus, cache, state, loaders, answersDuringOutage };
  }

  it('site.updated, site.deleted and settings.changed (stored stream messages) drop the site’s reach', async () => {
    const { bus, answersDuringOutage } = await start();
    expect(await answersDuringOutage()).toBe(true);
    const audit = { actor_account_id: 7, request_id: 'r1' };
    const news = [
      () =>
        bus.publish(SUBJECTS.siteUpdated, {
          site_id: 1,
          account_id: 7,
          tracking_key: 't',
          name: 'a.example',
          timezone: 'UTC',
          week_start: 1,
          updated_at: new Date().toISOString(),
        }),
      () => bus.publish(SUBJECTS.siteDeleted, { site_id: 1, account_id: 7, tracking_key: 't', deleted_at: new Date().toISOString() }),
      () => bus.publish(SUBJECTS.settingsChanged, { site_id: 1, kind: 'hostnames', version: 0, changed_at: new Date().toISOString(), audit } as never),
    ];
    for (const publish of news) {
      await publish();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await answersDuringOutage()).toBe(false);
    }
  });

  it('report-access.changed (broadcast) drops a site’s reach or an account’s plan', async () => {
    const { bus, cache, state, loaders, answersDuringOutage } = await start();
    await bus.broadcast(SUBJECTS.reportAccessChanged, { site_id: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await answersDuringOutage()).toBe(true);
    await bus.broadcast(SUBJECTS.reportAccessChanged, { site_id: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await answersDuringOutage()).toBe(false);
    const before = state.planCalls;
    await cache.resolve(actor, 1, loaders);
    expect(state.planCalls).toBe(before);
    await bus.broadcast(SUBJECTS.reportAccessChanged, { account_id: 7 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await cache.resolve(actor, 1, loaders);
    expect(state.planCalls).toBe(before + 1);
  });

  it('hands each subject to the listeners of its kind only, each once', async () => {
    const bus = new LocalBus();
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    const heard: string[] = [];
    const all = {
      siteChanged: (id: number) => heard.push(`site ${id}`),
      settingsChanged: (id: number) => heard.push(`settings ${id}`),
      dataChanged: (id: number) => heard.push(`data ${id}`),
      accessChanged: (c: object) => heard.push(`access ${JSON.stringify(c)}`),
    };
    const dataOnly = { dataChanged: (id: number) => heard.push(`data-only ${id}`) };
    subscriptions = await subscribeCacheNews(bus, [all, dataOnly]);
    const audit = { actor_account_id: 7, request_id: 'r1' };
    await bus.publish(SUBJECTS.siteUpdated, {
      site_id: 1,
      account_id: 7,
      tracking_key: 't',
      name: 'a.example',
      timezone: 'UTC',
      week_start: 1,
      updated_at: new Date().toISOString(),
    });
    await bus.publish(SUBJECTS.siteDeleted, { site_id: 2, account_id: 7, tracking_key: 't', deleted_at: new Date().toISOString() });
    await bus.publish(SUBJECTS.settingsChanged, { site_id: 3, kind: 'hostnames', version: 0, changed_at: new Date().toISOString(), audit } as never);
    await bus.broadcast(SUBJECTS.reportDataChanged, { site_id: 4 });
    await bus.broadcast(SUBJECTS.reportAccessChanged, { account_id: 7 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual(['site 1', 'site 2', 'settings 3', 'data 4', 'data-only 4', 'access {"account_id":7}']);
  });
});
