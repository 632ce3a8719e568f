export type { Bus, ConsumeOptions, DeliveredMessage, PublishOptions, StreamConfig, Subscription } from './bus.js';
export { BusClosedError, NoStreamForSubjectError, StreamNotFoundError } from './bus-errors.js';
export { consoleBusLogger, type BusLogLevel, type BusLogger } from './bus-logger.js';
export { DEFAULT_ACK_WAIT_MS, DEFAULT_MAX_ACK_PENDING, DEFAULT_MAX_DELIVER } from './bus-defaults.js';
export { defaultRedeliveryBackoff, type RedeliveryBackoff } from './redelivery-backoff.js';
export { LocalBus, DEFAULT_COMPACT_THRESHOLD_BYTES, type LocalBusOptions } from './local-bus.js';
export { NatsBus, connectNatsBus, type ConnectNatsBusOptions, type NatsBusOptions } from './nats-bus.js';
export { openBus, type OpenBusOptions } from './open-bus.js';
export { SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS, type SubjectName, type SubjectPayloads } from './streams.js';
