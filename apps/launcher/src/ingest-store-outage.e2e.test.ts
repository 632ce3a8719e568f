import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendGate, waitFor } from '@sightline/testkit';
import { jetStreamBacklog, jetStreamDrained, startIngestionRig, type IngestionRig } from './test-support/ingestion-rig.js';
import { sendTrackerLoad, seqMismatch, storedCounts, storedSeqs } from './test-support/tracker-load.js';

// The events store (a ClickHouse HTTP server: chDB behind the test facade) goes away
// for a while under load — its port refuses connections, as a crashed server's does —
// and comes back on the same port and data. Collection keeps answering 202, the
// backlog waits on JetStream, and once the store is back every accepted event is
// stored exactly once. What it proves: ingest's batch writer keeps a failed batch and
// retries it (apps/ingest/src/writer/batch-writer.ts) and acks nothing it has not stored.
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');

const EVENTS = 20_000;
const VISITORS = 500;
const CONCURRENCY = 32;
const OUTAGE_MS = 10_000;

describe.skipIf(!pgGate.available || !natsGate.available)('the events store down for a while under load (microservices, NATS)', () => {
  let rig: IngestionRig;

  beforeAll(async () => {
    rig = await startIngestionRig({ databaseName: 'sightline_store_outage', pgUrl: pgGate.url, natsUrl: natsGate.url });
  }, 240_000);

  afterAll(async () => {
    await rig?.close();
  }, 60_000);

  it('keeps answering 202 during the outage and stores every accepted event once when the store returns', async () => {
    const { siteId, key, host } = await rig.createSite('outage');
    const load = sendTrackerLoad({ gatewayUrl: rig.gatewayUrl, key, host, events: EVENTS, visitors: VISITORS, concurrency: CONCURRENCY });

    // some events are stored (ingest is warm), then the store goes away
    await waitFor(async () => (await storedCounts(await rig.eventsStore(), siteId)).events > 0, 120_000);
    const beforeOutage = { accepted: load.accepted.size, stored: (await storedCounts(await rig.eventsStore(), siteId)).events };
    await rig.stopEventsStore();
    const backlogAtStop = await jetStreamBacklog(rig.nats.url);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const duringOutage = { accepted: load.accepted.size - beforeOutage.accepted, failures: [...load.failures], backlog: await jetStreamBacklog(rig.nats.url) };
    await rig.startEventsStore();
    const recoveredAt = Date.now();
    await load.done;

    const store = await rig.eventsStore();
    await waitFor(async () => (await jetStreamDrained(rig.nats.url)) && (await storedCounts(store, siteId)).events >= load.accepted.size, 120_000).catch(
      () => undefined,
    );
    const counts = await storedCounts(store, siteId);
    const retries = (
      rig
        .ingest()
        .output()
        .match(/events insert failed; retrying the batch/g) ?? []
    ).length;
    console.info(
      `store outage of ${OUTAGE_MS} ms: before ${JSON.stringify(beforeOutage)}; during ${JSON.stringify(duringOutage)} (backlog at stop ${backlogAtStop}); ` +
        `${retries} failed inserts retried; drained ${Date.now() - recoveredAt} ms after recovery; stored ${JSON.stringify(counts)}`,
    );

    // collection never noticed: 202s all through the outage, the backlog grew on the bus
    expect(duringOutage.failures).toEqual([]);
    expect(duringOutage.accepted).toBeGreaterThan(1_000);
    expect(duringOutage.backlog).toBeGreaterThan(backlogAtStop);
    expect(duringOutage.backlog).toBeGreaterThan(1_000);
    expect(retries).toBeGreaterThan(0);
    // after recovery: every 202 stored exactly once, one visit per visitor
    expect(load.failures.size).toBe(0);
    expect(load.accepted.size).toBe(EVENTS);
    expect(seqMismatch(load.accepted, await storedSeqs(store, siteId))).toEqual({ missing: 0, unexpected: 0, firstMissing: [], firstUnexpected: [] });
    expect(counts).toEqual({ events: EVENTS, distinct_events: EVENTS, sessions: VISITORS, session_pageviews: EVENTS });
  }, 240_000);
});
