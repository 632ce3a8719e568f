import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from '@sightline/event-store';
import { expectApiError, makeTempDir } from '@sightline/testkit';
import { siteActivity } from './site-activity.js';

// On the real ClickHouse engine (chDB): before ingestion created `events`, after.
describe('SiteActivity', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: dir.path, database: 'activity_test' });
  });

  afterAll(async () => {
    await events?.close();
    await dir?.remove();
  });

  const since = () => new Date(Date.now() - 7 * 86_400_000).toISOString();

  it('answers 0 while the events table does not exist', async () => {
    expect(await siteActivity(events, { siteId: 1, since: since() })).toEqual({ events: 0 });
  });

  it('counts a site’s events since the given time, and only that site’s', async () => {
    await events.command("CREATE TABLE events (site_id UInt64, timestamp DateTime64(3, 'UTC'), name String) ENGINE = MergeTree ORDER BY (site_id, timestamp)");
    const now = Date.now();
    const at = (msAgo: number) => new Date(now - msAgo).toISOString().replace('T', ' ').replace('Z', '');
    await events.insert('events', [
      { site_id: 1, timestamp: at(60_000), name: 'pageview' },
      { site_id: 1, timestamp: at(2 * 86_400_000), name: 'pageview' },
      { site_id: 1, timestamp: at(30 * 86_400_000), name: 'pageview' },
      { site_id: 2, timestamp: at(60_000), name: 'pageview' },
    ]);
    expect(await siteActivity(events, { siteId: 1, since: since() })).toEqual({ events: 2 });
    expect(await siteActivity(events, { siteId: 3, since: since() })).toEqual({ events: 0 });
  });

  it('refuses a missing time or site', async () => {
    await expectApiError(siteActivity(events, { siteId: 1, since: 'yesterday-ish' }), 'invalid_request');
    await expectApiError(siteActivity(events, { siteId: 0, since: since() }), 'invalid_request');
  });
});
