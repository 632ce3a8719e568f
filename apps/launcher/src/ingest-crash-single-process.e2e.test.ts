import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from '@sightline/event-store';
import { backendGate, waitFor, type LauncherProcess } from '@sightline/testkit';
import { ApiClient, freshIp, register } from './test-support/api-client.js';
import { singleProcessFixture, type SingleProcessFixture } from './test-support/single-process-fixture.js';
import { sendTrackerLoad, seqMismatch, storedCounts, storedSeqs } from './test-support/tracker-load.js';

// kill -9 of the single process (`npm start`: gateway, ingest, local journal, embedded
// chDB) while events flow, then a restart: every event answered 202 before the kill is
// stored exactly once, and the visits are one per visitor. What it proves: the
// gateway answers 202 only after the journal holds the event, and ingest acks it
// (the journal's ack log) only once its rows are stored.
const pgGate = await backendGate('postgres');

const EVENTS = 30_000;
const VISITORS = 600;
const CONCURRENCY = 32;
const KILL_AFTER_ACCEPTED = 6_000;

describe.skipIf(!pgGate.available)('the single process survives kill -9 under collection load', () => {
  let fixture: SingleProcessFixture;
  let server: LauncherProcess | undefined;

  beforeAll(async () => {
    fixture = await singleProcessFixture(pgGate.url, 'sightline_single_crash');
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await fixture?.close();
  });

  const start = () => fixture.start();

  it('stores every event answered 202 before the kill exactly once after the restart', async () => {
    server = await start();
    const api = new ApiClient(server.url).withIp(freshIp());
    const owner = await register(api, fixture.smtp, `single-crash.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    const host = `single-crash-${Date.now().toString(36)}.sightline-e2e.net`;
    const site = await api.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', { token: owner.token, body: { url: `https://${host}` } });
    const siteId = site.body.site_id;
    const key = /\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
    const pageviews = async (client: ApiClient) => {
      const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const answer = await client.request<{ results: { metrics: { pageviews: number } }[] }>('POST', '/api/v1/query', {
        token: owner.token,
        body: { site_id: siteId, metrics: ['pageviews'], date_range: [day(-1), day(1)] },
      });
      return answer.status === 200 ? answer.body.results[0]!.metrics.pageviews : -1;
    };

    const load = sendTrackerLoad({ gatewayUrl: server.url, key, host, events: EVENTS, visitors: VISITORS, concurrency: CONCURRENCY });
    await waitFor(async () => load.accepted.size >= KILL_AFTER_ACCEPTED && (await pageviews(api)) > 0, 120_000);
    await server.stop('SIGKILL');
    // what was answered 202 before the kill; the rest of the load now fails to connect
    const acceptedBeforeKill = new Set(load.accepted);
    await load.done;
    expect(load.accepted.size).toBe(acceptedBeforeKill.size);

    server = await start();
    const again = new ApiClient(server.url).withIp(freshIp());
    await waitFor(async () => (await pageviews(again)) >= acceptedBeforeKill.size, 120_000).catch(() => undefined);
    // settle: a redelivery still in flight would show up as a second row
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;

    const store = await ChdbEventStore.open({ path: path.join(fixture.dataDir, 'events'), database: 'sightline' });
    try {
      const seqs = await storedSeqs(store, siteId);
      const counts = await storedCounts(store, siteId);
      const mismatch = seqMismatch(acceptedBeforeKill, seqs);
      console.info(
        `single process kill -9: ${acceptedBeforeKill.size} accepted before the kill, failures after it ${JSON.stringify([...load.failures])}; stored ${JSON.stringify(counts)}`,
      );
      expect([mismatch.missing, mismatch.firstMissing]).toEqual([0, []]);
      // an event published just before the kill may be stored though its 202 never left: fine, once
      expect(mismatch.unexpected).toBeLessThanOrEqual(CONCURRENCY);
      const visitors = new Set(seqs.map((seq) => seq % VISITORS)).size;
      expect(counts).toEqual({ events: seqs.length, distinct_events: seqs.length, sessions: visitors, session_pageviews: seqs.length });
    } finally {
      await store.close();
    }
  }, 300_000);
});
