import type { Bus, SubjectCatalogue } from './bus.js';
import type { BusLogger } from './bus-logger.js';
import { LocalBus } from './local-bus.js';
import { connectNatsBus } from './nats-bus.js';
import type { SubjectPayloads } from './streams.js';

export interface OpenBusOptions {
  /** NATS server URL: use NATS JetStream (multi-process deployments). */
  natsUrl?: string;
  /** Journal directory for the in-process bus (single-process mode); memory only without it. */
  journalDir?: string;
  /** Connection name shown by the NATS server. */
  name?: string;
  logger?: BusLogger;
  /**
   * Default max_ack_pending of this bus's durables (512 when unset); a consumer
   * that needs more (batch writers) sets `ConsumeOptions.maxAckPending` itself.
   */
  maxAckPending?: number;
  /** In-process bus only: LocalBusOptions.maxStreamBytes (NATS streams are bounded by the server's limits). */
  maxStreamBytes?: number;
}

/** NatsBus when a NATS URL is configured, otherwise the in-process LocalBus. */
export async function openBus<P extends SubjectCatalogue = SubjectPayloads>(options: OpenBusOptions): Promise<Bus<P>> {
  const { natsUrl, journalDir, name, logger, maxAckPending, maxStreamBytes } = options;
  const common = { ...(logger ? { logger } : {}), ...(maxAckPending !== undefined ? { maxAckPending } : {}) };
  if (natsUrl) return connectNatsBus<P>(natsUrl, { ...(name ? { name } : {}), ...common });
  return new LocalBus<P>({ ...(journalDir ? { journalDir } : {}), ...(maxStreamBytes !== undefined ? { maxStreamBytes } : {}), ...common });
}
