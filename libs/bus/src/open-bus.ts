import type { Bus } from './bus.js';
import type { BusLogger } from './bus-logger.js';
import { LocalBus } from './local-bus.js';
import { connectNatsBus } from './nats-bus.js';

export interface OpenBusOptions {
  /** NATS server URL: use NATS JetStream (multi-process deployments). */
  natsUrl?: string;
  /** Journal directory for the in-process bus (single-process mode); memory only without it. */
  journalDir?: string;
  /** Connection name shown by the NATS server. */
  name?: string;
  logger?: BusLogger;
}

/** NatsBus when a NATS URL is configured, otherwise the in-process LocalBus. */
export async function openBus(options: OpenBusOptions): Promise<Bus> {
  const { natsUrl, journalDir, name, logger } = options;
  if (natsUrl) return connectNatsBus(natsUrl, { ...(name ? { name } : {}), ...(logger ? { logger } : {}) });
  return new LocalBus({ ...(journalDir ? { journalDir } : {}), ...(logger ? { logger } : {}) });
}
