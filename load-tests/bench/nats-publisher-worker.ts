/**
 * The ingestion bench's publisher on NATS, in a worker thread: as in production, where
 * the gateway that publishes is another process, ingest's event loop does not also
 * run the publishing. (The local bus lives in one process, so there the publisher
 * shares ingest's thread, as it does in `npm start`.)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { connectNatsBus } from '@sightline/bus';
import type { CollectedMessage } from './ingest-traffic.js';
import { publishCollected } from './publish-paced.js';

export interface PublisherWorkerData {
  url: string;
  messages: CollectedMessage[];
  shards: number;
  window: number;
}

export interface PublishOrder {
  from: number;
  ratePerSecond?: number;
}

const { url, messages, shards, window } = workerData as PublisherWorkerData;
const port = parentPort!;
const bus = await connectNatsBus(url, { name: 'bench-publisher' });
port.once('message', (order: PublishOrder) => {
  void (async () => {
    const times = await publishCollected(bus, messages, { shards, from: order.from, ratePerSecond: order.ratePerSecond, window });
    await bus.close();
    port.postMessage({ times }, [times.buffer as ArrayBuffer]);
  })();
});
port.postMessage({ ready: true });
