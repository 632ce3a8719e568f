import { collectedSubject, SIGHTLINE_STREAMS, STREAM_NAMES, type DeliveredMessage, type Subscription } from '@sightline/bus';
import { inConsumerSpan, tracingActive } from '@sightline/telemetry';
import { ownedShards, shardDurable } from './shard-ownership.js';
import type { ServiceInstance } from '@sightline/runtime';
import { DailySalts } from './identity/daily-salts.js';
import { IngestPipeline } from './pipeline/ingest-pipeline.js';
import type { IngestPorts } from './pipeline/ports.js';
import { rebuildSessions } from './sessions/rebuild-sessions.js';
import { SessionCache } from './sessions/session-cache.js';
import { INGEST_DURABLE, consumeSiteDeleted } from './site-deleted.js';
import { startImports } from './imports/start-imports.js';
import { productionPorts, type IngestDeps } from './wiring.js';

export { INGEST_CALLS, INGEST_NEEDS } from './wiring.js';
import { BatchWriter } from './writer/batch-writer.js';

export interface StartIngestOptions {
  /** the pipeline's ports; production ones from wiring.ts when absent */
  ports?: IngestPorts;
}

/** Tests hand their own ports and need no gRPC clients. */
type StartDeps = Omit<IngestDeps, 'clients'> & Partial<Pick<IngestDeps, 'clients'>>;

export async function startIngest(deps: StartDeps, options: StartIngestOptions = {}): Promise<ServiceInstance> {
  const { db, events: store, bus, log, config } = deps;
  await bus.ensureStreams(SIGHTLINE_STREAMS);

  const sessions = new SessionCache();
  const writer = new BatchWriter(store, {
    maxRows: config.INGEST_BATCH_ROWS,
    maxDelayMs: config.INGEST_BATCH_MAX_DELAY_MS,
    retryBaseMs: 200,
    retryMaxMs: 30_000,
    // Each shard's consumer holds at most a batch of unacked messages: once a batch waits here, write.
    maxParts: config.INGEST_BATCH_ROWS,
    onInsertError: (err, attempt) => log.warn({ err: String(err), attempt }, 'events insert failed; retrying the batch'),
  });
  const subscriptions: Subscription[] = [await consumeSiteDeleted(store, bus, sessions, writer, log)];

  let ports = options.ports;
  let preparePorts = async (): Promise<void> => {};
  let closePorts = async (): Promise<void> => {};
  if (!ports) {
    if (!deps.clients) throw new Error('ingest needs its gRPC clients (sites, settings, identity) or test ports');
    const production = await productionPorts({ ...deps, clients: deps.clients });
    ports = production.ports;
    preparePorts = production.prepare;
    closePorts = production.close;
  }

  const clock = ports.clock;
  // Geo data and live visits are loaded when the first event arrives, not at start:
  // an idle ingest then holds neither the geo data nor the events store (embedded
  // chDB loads on first use). Every event waits for this; a failure is retried by
  // the next one (the bus redelivers).
  let warming: Promise<void> | undefined;
  let warm = false;
  const warmUp = (): Promise<void> =>
    (warming ??= (async () => {
      await preparePorts();
      const rebuilt = await rebuildSessions(store, sessions, clock());
      log.info({ sessions: rebuilt.visits, repaired: rebuilt.repaired }, 'live sessions rebuilt from the sessions and events tables');
      warm = true;
    })().catch((error: unknown) => {
      warming = undefined;
      throw error;
    }));
  const pipeline = new IngestPipeline({ ports, salts: new DailySalts(db, ports.clock), sessions, writer, store });
  const ownership = ownedShards({ eventShards: config.EVENT_SHARDS, replicas: config.INGEST_REPLICAS, replicaIndex: config.INGEST_REPLICA_INDEX, podName: config.POD_NAME });
  log.info({ shards: ownership.shards, replica: ownership.replica, replicas: ownership.replicas }, 'consuming the event shards this replica owns');
  // once warm, straight to the pipeline: no await (and microtask) per event for a warm-up long done
  const handle = (msg: DeliveredMessage<unknown>): Promise<void> => pipeline.handle(msg.data, msg.deliveryCount > 1, msg.streamSeq);
  const consume = (msg: DeliveredMessage<unknown>): Promise<void> => (warm ? handle(msg) : warmUp().then(() => handle(msg)));
  const perShardInFlight = Math.max(1, Math.ceil((2 * config.INGEST_BATCH_ROWS) / ownership.shards.length));
  for (const shard of ownership.shards) {
    subscriptions.push(
      await bus.consume({
        stream: STREAM_NAMES.events,
        durable: shardDurable(shard),
        filterSubject: collectedSubject(shard),
        // unacked events come back after INGEST_ACK_WAIT_MS (longer than a batch takes; while the
        // store is down, redeliveries join the batch already waiting, see IngestPipeline)
        ackWaitMs: config.INGEST_ACK_WAIT_MS,
        // the writer acks a batch only after its insert: let two batches be in flight
        // across the shards (one being written, one filling), not one per shard
        maxAckPending: perShardInFlight,
        // A payload never fails for its content (bad ones are counted and acked), only
        // for the store being down: keep redelivering, never give an event up.
        maxDeliver: -1,
        // the consume span joins the collect request's trace (context from the message headers);
        // tracing off, nothing is built per message for it (no attributes, span or closure)
        handler: (msg) =>
          tracingActive() || msg.traceHeaders
            ? inConsumerSpan('ingest consume', msg.traceHeaders, { 'messaging.destination.name': msg.subject, 'messaging.message.delivery_count': msg.deliveryCount }, () => consume(msg))
            : consume(msg),
      }),
    );
  }
  const expiry = setInterval(() => sessions.expire(), 60_000);
  expiry.unref();

  // imports: IngestService (uploads, deletion), the background writer, resumption after a crash
  // a restarted StatefulSet pod keeps its ordinal, so it resumes exactly the imports it had staged
  const imports = await startImports({ events: store, bus, log, clock: deps.clock, db }, { replica: ownership.replica });

  return {
    services: imports.services,
    stop: async () => {
      await imports.stop();
      clearInterval(expiry);
      await Promise.all(subscriptions.map((s) => s.stop()));
      await writer.close();
      await closePorts();
    },
  };
}
