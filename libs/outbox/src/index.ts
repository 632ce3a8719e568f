export { startOutboxRelay, enqueueOutboxMessage, sweepOutbox, outboxMsgId, DEFAULT_RELAY_INTERVAL_MS, DEFAULT_OUTBOX_RETENTION_MS } from './outbox-relay.js';
export type { OutboxRelay, OutboxRelayOptions } from './outbox-relay.js';
export { ensureOutboxTable, outboxTable, outboxTableDdl } from './outbox-table.js';
