import { Gauge } from 'prom-client';
import { metricsRegistry } from './metrics.js';

/** The backlog of one durable consumer, as its broker reports it (JetStream consumer info). */
export interface BusConsumerFigures {
  stream: string;
  durable: string;
  /** messages the durable has not been handed yet (JetStream `num_pending`) */
  pending: number;
  /** messages handed out and not acked yet (`num_ack_pending`) */
  ackPending: number;
  /** age of the oldest message the durable has not acked (handed out or not); 0 when it has acked everything */
  oldestUnackedAgeSeconds: number;
}

type ConsumerSource = () => Promise<readonly BusConsumerFigures[]>;

const sources = new Set<ConsumerSource>();
/** one reading serves the three gauges of a scrape: the broker is asked once per durable, not three times */
const READING_FRESH_MS = 1_000;
let reading: { at: number; figures: Promise<BusConsumerFigures[]> } | undefined;

/**
 * A bus reports the durables it consumes here; the figures are asked of the broker
 * when /metrics is scraped (nothing per message). A source that fails is left out of
 * that scrape (its series disappear rather than freeze). Returns the function that
 * stops reporting (the bus closed).
 */
export function reportBusConsumers(source: ConsumerSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

function currentFigures(): Promise<BusConsumerFigures[]> {
  const now = Date.now();
  if (!reading || now - reading.at > READING_FRESH_MS) {
    const asked = [...sources].map((source) => source().catch(() => []));
    reading = { at: now, figures: Promise.all(asked).then((lists) => lists.flat()) };
  }
  return reading.figures;
}

function consumerGauge(name: string, help: string, figure: (f: BusConsumerFigures) => number): Gauge<'stream' | 'durable'> {
  return new Gauge({
    name,
    help,
    labelNames: ['stream', 'durable'] as const,
    registers: [metricsRegistry],
    async collect() {
      const figures = sources.size > 0 ? await currentFigures() : [];
      this.reset();
      for (const f of figures) this.set({ stream: f.stream, durable: f.durable }, figure(f));
    },
  });
}

export const busConsumerPending = consumerGauge(
  'sightline_bus_consumer_pending_messages',
  'Messages of a stream a durable consumer has not been handed yet (NATS JetStream num_pending): the backlog waiting for it.',
  (f) => f.pending,
);

export const busConsumerAckPending = consumerGauge(
  'sightline_bus_consumer_ack_pending_messages',
  'Messages handed to a durable consumer and not acked yet (num_ack_pending); at its max_ack_pending it receives nothing more.',
  (f) => f.ackPending,
);

export const busConsumerLag = consumerGauge(
  'sightline_bus_consumer_lag_seconds',
  'Age of the oldest message a durable consumer has not acked (0: all acked). Rises by a second per second while the consumer is stuck; for the ingest durables, how far behind collection the stored events are.',
  (f) => f.oldestUnackedAgeSeconds,
);
