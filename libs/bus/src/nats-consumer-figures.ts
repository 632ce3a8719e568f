import type { JetStreamManager, MsgRequest } from '@nats-io/jetstream';
import type { BusConsumerFigures } from '@sightline/telemetry';

/** A durable this process consumes, as NatsBus.consume created it. */
export interface ConsumedDurable {
  stream: string;
  durable: string;
  filterSubject?: string;
}

/**
 * The backlog of one durable as JetStream knows it: its consumer info's pending and
 * ack-pending counts, and the age of the oldest message it has not acked — the first
 * message of its subject after its ack floor (everything at or below the floor is
 * acked), read by `STREAM.MSG.GET` with `next_by_subj`. Two requests per durable.
 */
export async function readConsumerFigures(jsm: JetStreamManager, consumed: ConsumedDurable, now = Date.now()): Promise<BusConsumerFigures> {
  const info = await jsm.consumers.info(consumed.stream, consumed.durable);
  const figures = {
    stream: consumed.stream,
    durable: consumed.durable,
    pending: info.num_pending,
    ackPending: info.num_ack_pending,
    oldestUnackedAgeSeconds: 0,
  };
  if (info.num_pending + info.num_ack_pending === 0) return figures;
  // the server takes `next_by_subj` on this API (nats-server ≥ 2.9); the client's type names only seq / last_by_subj
  const query = { seq: info.ack_floor.stream_seq + 1, next_by_subj: consumed.filterSubject ?? '>' } as unknown as MsgRequest;
  const oldest = await jsm.streams.getMessage(consumed.stream, query);
  if (oldest) figures.oldestUnackedAgeSeconds = Math.max(0, (now - oldest.time.getTime()) / 1000);
  return figures;
}
