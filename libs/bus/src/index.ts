export type {
  Bus,
  ConsumeOptions,
  ConsumeSubject,
  DeliveredMessage,
  Payload,
  PublishOptions,
  PublishSubject,
  StreamConfig,
  StreamRetention,
  StreamState,
  Subject,
  SubjectCatalogue,
  Subscription,
  UntypedSubjects,
} from './bus.js';
export { BusClosedError, NoStreamForSubjectError, StreamFullError, StreamNotFoundError, WorkQueueConflictError } from './bus-errors.js';
export { consoleBusLogger, type BusLogLevel, type BusLogger } from './bus-logger.js';
export { DEFAULT_ACK_WAIT_MS, DEFAULT_MAX_ACK_PENDING, DEFAULT_MAX_DELIVER } from './bus-defaults.js';
export { defaultRedeliveryBackoff, type RedeliveryBackoff } from './redelivery-backoff.js';
export { LocalBus, DEFAULT_COMPACT_THRESHOLD_BYTES, type LocalBusOptions } from './local-bus.js';
export { NatsBus, connectNatsBus, type ConnectNatsBusOptions, type NatsBusOptions } from './nats-bus.js';
export { openBus, type OpenBusOptions } from './open-bus.js';
export { startDurableConsumer, type DurableConsumer, type DurableConsumerRetry } from './durable-consumer.js';
export {
  COLLECTED_FILTER,
  DEFAULT_EVENT_SHARDS,
  MAX_EVENT_SHARDS,
  collectedEventShard,
  collectedSubject,
  fnv1a32,
  type CollectedSubject,
} from './collected-shard.js';
export {
  LEGACY_EVENTS_STREAM,
  SIGHTLINE_STREAMS,
  STREAM_NAMES,
  SUBJECTS,
  type SettingsChanged,
  type SettingsKind,
  type SubjectName,
  type SubjectPayloads,
} from './streams.js';
