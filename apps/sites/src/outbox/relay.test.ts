import { jetstreamManager } from '@nats-io/jetstream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectNatsBus, STREAM_NAMES } from '@sightline/bus';
import { backendGate } from '@sightline/testkit';
import { waitFor } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, freshUrl, startSitesHarness, type SitesHarness } from '../test-support/sites-harness.js';
import { pgliteTestDb, type TestDb } from '../test-support/test-databases.js';

interface OutboxRow {
  id: number;
  published_at: Date | null;
  attempts: number;
  last_error: string | null;
}

const natsGate = await backendGate('nats');

describe('site.deleted outbox relay', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = async (): Promise<TestDb> => {
    const testDb = await pgliteTestDb();
    cleanups.push(() => testDb.dispose());
    return testDb;
  };
  const createAndDelete = async (h: SitesHarness) => {
    const owner = actorFor(freshAccountId());
    const site = (await h.rpc.createSite({ actor: owner, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).site!;
    await h.rpc.deleteSite({ actor: owner, audit: auditContext(), siteId: site.siteId });
    return { owner, site };
  };
  const outboxRows = async (h: SitesHarness, trackingKey: string) =>
    (await h.db.query<OutboxRow>("SELECT id, published_at, attempts, last_error FROM sites.outbox WHERE payload->>'tracking_key' = $1", [trackingKey])).rows;

  it('a deletion committed while the bus refuses is published later, by the next process', async () => {
    const { db } = await open();
    // a bus without the SITES stream: every publish fails for real (no stream captures the subject)
    const first = await startSitesHarness({ db, streams: false });
    const { owner, site } = await createAndDelete(first);
    await first.instance.relay.flush();
    const [pending] = await outboxRows(first, site.trackingKey);
    expect(pending).toMatchObject({ published_at: null, last_error: expect.stringMatching(/stream/) });
    expect(pending!.attempts).toBeGreaterThanOrEqual(1);
    await first.close(); // the process goes away with the message unpublished

    const second = await startSitesHarness({ db });
    try {
      await waitFor(() => second.deleted.some((m) => m.tracking_key === site.trackingKey));
      expect(second.deleted.filter((m) => m.tracking_key === site.trackingKey)).toEqual([
        {
          site_id: site.siteId,
          account_id: owner.accountId,
          tracking_key: site.trackingKey,
          deleted_at: expect.any(String),
          msgId: expect.stringMatching(/^sites-outbox-[0-9a-f-]{36}$/),
        },
      ]);
      await waitFor(async () => (await outboxRows(second, site.trackingKey))[0]!.published_at !== null);
    } finally {
      await second.close();
    }
  });

  it('publishes oldest first and marks each row; a re-publish of a row carries the same msgId and is dropped by the bus', async () => {
    const { db } = await open();
    const h = await startSitesHarness({ db });
    try {
      const deletions = [await createAndDelete(h), await createAndDelete(h), await createAndDelete(h)];
      await h.instance.relay.flush();
      await waitFor(() => h.deleted.length === 3);
      expect(h.deleted.map((m) => m.site_id)).toEqual(deletions.map((d) => d.site.siteId));
      // as if the process died after publishing but before marking the row
      const [row] = await outboxRows(h, deletions[0]!.site.trackingKey);
      await h.db.query('UPDATE sites.outbox SET published_at = NULL WHERE id = $1', [row!.id]);
      await h.instance.relay.flush();
      expect((await outboxRows(h, deletions[0]!.site.trackingKey))[0]!.published_at).not.toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(h.deleted).toHaveLength(3);
    } finally {
      await h.close();
    }
  });

  it.skipIf(!natsGate.available)('site.deleted reaches a consumer through NATS JetStream', async () => {
    const { db } = await open();
    // The NATS server is shared with earlier runs, whose fresh databases also numbered
    // their outbox from 1; the msgId is the row's random message_id, so a fresh
    // database's rows are never mistaken for duplicates of an earlier one's.
    const bus = await connectNatsBus(natsGate.url, { name: 'sites-relay-test' });
    cleanups.push(() => bus.close());
    const h = await startSitesHarness({ db, bus });
    try {
      const { owner, site } = await createAndDelete(h);
      await waitFor(() => h.deleted.some((m) => m.tracking_key === site.trackingKey), 15_000);
      expect(h.deleted.find((m) => m.tracking_key === site.trackingKey)).toMatchObject({
        site_id: site.siteId,
        account_id: owner.accountId,
        msgId: expect.stringMatching(/^sites-outbox-[0-9a-f-]{36}$/),
      });
    } finally {
      await h.close();
      // the durable consumer would otherwise stay on the shared server
      await (await jetstreamManager(bus.connection)).consumers.delete(STREAM_NAMES.sites, h.durable).catch(() => false);
    }
  });
});
