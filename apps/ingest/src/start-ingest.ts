import { collectedSubject, SIGHTLINE_STREAMS, STREAM_NAMES, type DeliveredMessage, type Subscription } from '@sightline/bus';
import { inConsumerSpan, tracingActive } from '@sightline/telemetry';
import { ownedShards, shardDurable } from './shard-ownership.js';
import type { ServiceInstance } from '@sightline/runtime';
import { DailySalts } from './identity/daily-salts.js';
import { startIngestCore, type IngestCore } from './ingest-core.js';
import type { IngestPorts } from './pipeline/ports.js';
import { consumeSiteDeleted } from './site-deleted.js';
import { PipelineThreads } from './threads/pipeline-threads.js';
import type { WorkerGeo } from './threads/worker-messages.js';
import type { RowFormat } from './writer/tab-separated-rows.js';
import { startImports } from './imports/start-imports.js';
import { productionPorts, type IngestDeps } from './wiring.js';

export { INGEST_CALLS, INGEST_NEEDS } from './wiring.js';

export interface StartIngestOptions {
  /** the pipeline's ports; production ones from wiring.ts when absent */
  ports?: IngestPorts;
  /** INGEST_WORKERS > 0: where the workers' geo data comes from (default DB-IP; tests pass a table) */
  workerGeo?: WorkerGeo;
  /** how events and sessions rows go to the store; the ingestion bench sets 'json' for its baseline */
  rowFormat?: RowFormat;
}

/** Tests hand their own ports and need no gRPC clients. */
type StartDeps = Omit<IngestDeps, 'clients'> & Partial<Pick<IngestDeps, 'clients'>>;

export async function startIngest(deps: StartDeps, options: StartIngestOptions = {}): Promise<ServiceInstance> {
  const { db, events: store, bus, log, config } = deps;
  await bus.ensureStreams(SIGHTLINE_STREAMS);

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

  const ownership = ownedShards({
    eventShards: config.EVENT_SHARDS,
    replicas: config.INGEST_REPLICAS,
    replicaIndex: config.INGEST_REPLICA_INDEX,
    podName: config.POD_NAME,
  });
  log.info({ shards: ownership.shards, replica: ownership.replica, replicas: ownership.replicas }, 'consuming the event shards this replica owns');
  const salts = new DailySalts(db, ports.clock);
  // INGEST_WORKERS: the pipeline on worker threads (the main thread keeps the bus and the
  // stores); 0: on this thread
  const core: IngestCore =
    config.INGEST_WORKERS > 0
      ? await PipelineThreads.start({
          workers: config.INGEST_WORKERS,
          shards: ownership.shards,
          store,
          sites: ports.sites,
          salts,
          clock: ports.clock,
          log,
          config,
          geo: options.workerGeo ?? { kind: 'dbip' },
          ...(options.rowFormat ? { rowFormat: options.rowFormat } : {}),
        })
      : startIngestCore({ ports, salts, store, config, log, prepare: preparePorts, ...(options.rowFormat ? { rowFormat: options.rowFormat } : {}) });
  const subscriptions: Subscription[] = [await consumeSiteDeleted(store, bus, core, log)];

  // two batches in flight per pipeline (one being written, one filling): with workers, per worker
  const perShardInFlight = Math.max(1, Math.ceil((2 * config.INGEST_BATCH_ROWS * core.pipelines) / ownership.shards.length));
  for (const shard of ownership.shards) {
    const consume = (msg: DeliveredMessage<unknown>): Promise<void> => core.handle(msg.data, msg.deliveryCount > 1, msg.streamSeq, shard, msg.storedAt);
    subscriptions.push(
      await bus.consume({
        stream: STREAM_NAMES.events,
        durable: shardDurable(shard),
        filterSubject: collectedSubject(shard),
        // unacked events come back after INGEST_ACK_WAIT_MS (longer than a batch takes; while the
        // store is down, redeliveries join the batch already waiting, see IngestPipeline)
        ackWaitMs: config.INGEST_ACK_WAIT_MS,
        // the writer acks a batch only after its insert: let two batches per pipeline be in
        // flight across the shards (one being written, one filling), not one per shard
        maxAckPending: perShardInFlight,
        // A payload never fails for its content (bad ones are counted and acked), only
        // for the store being down: keep redelivering, never give an event up.
        maxDeliver: -1,
        payloadText: core.takesPayloadText,
        // the consume span joins the collect request's trace (context from the message headers);
        // tracing off, nothing is built per message for it (no attributes, span or closure)
        handler: (msg) =>
          tracingActive() || msg.traceHeaders
            ? inConsumerSpan(
                'ingest consume',
                msg.traceHeaders,
                { 'messaging.destination.name': msg.subject, 'messaging.message.delivery_count': msg.deliveryCount },
                () => consume(msg),
              )
            : consume(msg),
      }),
    );
  }

  // imports: IngestService (uploads, deletion), the background writer, resumption after a crash
  // a restarted StatefulSet pod keeps its ordinal, so it resumes exactly the imports it had staged
  const imports = await startImports({ events: store, bus, log, clock: deps.clock, db }, { replica: ownership.replica });

  return {
    services: imports.services,
    stop: async () => {
      await imports.stop();
      await Promise.all(subscriptions.map((s) => s.stop()));
      await core.close();
      await closePorts();
    },
  };
}
