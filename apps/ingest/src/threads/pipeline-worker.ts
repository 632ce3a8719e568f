/**
 * A pipeline worker thread: runs the ingest pipeline (parse → … → sessionize →
 * batch) for the event shards the main thread hands it, with its own live visits
 * and batch writer. Its statements go to the main thread's store (RemoteEventStore);
 * sites and salts come from the main thread too (worker-ports.ts).
 * Started by pipeline-threads.ts; messages in worker-messages.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { context } from '@opentelemetry/api';
import { contextUnder, createLogger, startSpanForwarding } from '@sightline/telemetry';
import { startIngestCore } from '../ingest-core.js';
import { MainThread } from './main-thread.js';
import { RemoteEventStore } from './remote-event-store.js';
import type { FromWorker, PipelineWorkerData, ToWorker } from './worker-messages.js';
import { workerPorts } from './worker-ports.js';

const data = workerData as PipelineWorkerData;
const port = parentPort!;
const main = new MainThread(port);
const log = createLogger({ level: data.logLevel, service: 'ingest' }).child({ worker: data.index });
// the main thread traces: this thread's spans (batch writes) go there to be exported
const tracing = data.tracing ? await startSpanForwarding((spans) => main.post({ t: 'spans', spans })) : undefined;
const ports = workerPorts(main, data.geo);
const core = startIngestCore({
  ports: ports.ports,
  salts: ports.salts,
  store: new RemoteEventStore(main, data.store.kind, data.store.database, data.store.cluster),
  config: { INGEST_BATCH_ROWS: data.batchRows, INGEST_BATCH_MAX_DELAY_MS: data.batchMaxDelayMs },
  batchMinRows: data.batchMinRows,
  log,
  prepare: ports.prepare,
  onStoredBatch: (figures) => main.post({ t: 'stored-batch', figures }),
  ...(data.rowFormat ? { rowFormat: data.rowFormat } : {}),
});

// answers go back once per turn, many events in one message
let done: Extract<FromWorker, { t: 'done' }> = { t: 'done', ok: [], failed: [] };
let flushing = false;
function report(id: number, error?: unknown): void {
  if (error === undefined) done.ok.push(id);
  else done.failed.push([id, error instanceof Error ? error.message : String(error)]);
  if (flushing) return;
  flushing = true;
  setImmediate(postReport);
}

function postReport(): void {
  flushing = false;
  if (done.ok.length === 0 && done.failed.length === 0) return;
  main.post(done);
  done = { t: 'done', ok: [], failed: [] };
}

/**
 * The answers of this turn go first: after `finished` of a close the main thread
 * ends this thread, and the events of the batch written at close would never be
 * answered.
 */
function finished(id: number, work: Promise<void>): void {
  work
    .then(
      () => undefined,
      (error: unknown) => String(error),
    )
    .then((error) => {
      postReport();
      main.post(error === undefined ? { t: 'finished', id } : { t: 'finished', id, error });
    });
}

/** The main thread passes payloads as the bus's JSON text: parsed here, off its thread. Text that is not JSON stays text, which the pipeline counts as invalid. */
function parsed(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.t) {
    case 'events': {
      ports.setNow(message.now);
      ports.sites.use(message.sites);
      for (const event of message.events) {
        const id = event.id;
        const handled = event.link
          ? // as on one thread, where the event is handled inside its consume span: its batch links to it
            context.with(contextUnder(event.link), () => core.handle(parsed(event.raw), event.redelivered, event.streamSeq, 0, event.storedAt))
          : core.handle(parsed(event.raw), event.redelivered, event.streamSeq, 0, event.storedAt);
        handled.then(
          () => report(id),
          (error: unknown) => report(id, error),
        );
      }
      return;
    }
    case 'reply':
      main.settle(message);
      return;
    case 'forget-site':
      finished(message.id, core.forgetSite(message.siteId));
      return;
    case 'close':
      // the last batches' spans leave before the main thread hears it is finished
      finished(
        message.id,
        core.close().then(() => tracing?.shutdown()),
      );
      return;
  }
});

main.post({ t: 'ready' });
