import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendGate, waitFor } from '@sightline/testkit';
import { jetStreamDrained, startIngestionRig, type IngestionRig } from './test-support/ingestion-rig.js';
import { sendTrackerLoad, seqMismatch, storedCounts, storedSeqs } from './test-support/tracker-load.js';

// kill -9 of the ingest process (microservices on NATS JetStream) while 50,000 events
// flow, then a restart: every event answered 202 is stored exactly once and the visits
// are those of the generator (one per visitor), as if nothing had happened.
// What it proves: ingest acks a message only after its rows are stored, and a
// redelivered message that was stored before the kill is not stored or counted twice.
const pgGate = await backendGate('postgres');
const natsGate = await backendGate('nats');

const EVENTS = 50_000;
const VISITORS = 1_000;
const CONCURRENCY = 48;
/** the kill comes once this many events were answered 202 and some are stored */
const KILL_AFTER_ACCEPTED = 20_000;

// INGEST_WORKERS=2: the process killed holds the pipeline on two worker threads, each
// with its batches in flight; the restarted one starts new workers
describe.skipIf(!pgGate.available || !natsGate.available).each([
  { workers: '0', pipeline: 'pipeline on the main thread' },
  { workers: '2', pipeline: 'pipeline on 2 worker threads' },
])('ingest survives kill -9 under load (microservices, NATS, $pipeline)', ({ workers }) => {
  let rig: IngestionRig;

  beforeAll(async () => {
    // A 10 s ack wait: the killed process's messages come back while the visitors keep
    // browsing, so the restarted ingest applies new events to visits before the
    // redeliveries of events the killed process stored — including, when the kill falls
    // between a batch's events and sessions inserts, events whose visits never counted
    // them (the rebuild repairs those visits; rebuild-sessions.ts).
    rig = await startIngestionRig({
      databaseName: `sightline_ingest_crash_w${workers}`,
      pgUrl: pgGate.url,
      natsUrl: natsGate.url,
      env: { INGEST_ACK_WAIT_MS: '10000', INGEST_WORKERS: workers },
    });
  }, 240_000);

  afterAll(async () => {
    await rig?.close();
  }, 60_000);

  it(`stores each of ${EVENTS} accepted events once and counts one visit per visitor after a kill -9 mid-flow`, async () => {
    const { siteId, key, host } = await rig.createSite('crash');
    const store = await rig.eventsStore();
    const started = Date.now();
    const load = sendTrackerLoad({ gatewayUrl: rig.gatewayUrl, key, host, events: EVENTS, visitors: VISITORS, concurrency: CONCURRENCY });

    await waitFor(async () => load.accepted.size >= KILL_AFTER_ACCEPTED && (await storedCounts(store, siteId)).events > 0, 120_000);
    const atKill = { accepted: load.accepted.size, stored: (await storedCounts(store, siteId)).events };
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => {
      const child = rig.ingest().child;
      child.once('exit', (_code, sig) => resolve(sig));
      child.kill('SIGKILL');
    });
    expect(signal).toBe('SIGKILL');
    await rig.restartIngest();
    const restartedAt = Date.now();
    await load.done;
    const sentMs = Date.now() - started;

    // unacked messages of the killed process come back after the consumer's ack wait (INGEST_ACK_WAIT_MS)
    await waitFor(async () => (await jetStreamDrained(rig.nats.url)) && (await storedCounts(store, siteId)).events >= load.accepted.size, 150_000).catch(
      () => undefined,
    );
    const counts = await storedCounts(store, siteId);
    console.info(
      `ingest kill -9 (INGEST_WORKERS=${workers}): killed at ${atKill.accepted} accepted / ${atKill.stored} stored; ${load.accepted.size} accepted in ${sentMs} ms; ` +
        `drained ${Date.now() - restartedAt} ms after the restart; failures ${JSON.stringify([...load.failures])}; stored ${JSON.stringify(counts)}`,
    );

    expect(atKill.stored).toBeLessThan(EVENTS);
    expect(load.failures.size).toBe(0);
    expect(load.accepted.size).toBe(EVENTS);
    expect(seqMismatch(load.accepted, await storedSeqs(store, siteId))).toEqual({ missing: 0, unexpected: 0, firstMissing: [], firstUnexpected: [] });
    // exactly once, and the visits as the generator makes them: one per visitor, every pageview in one
    expect(counts).toEqual({ events: EVENTS, distinct_events: EVENTS, sessions: VISITORS, session_pageviews: EVENTS });
  }, 300_000);
});
