export type { EventStore, EventStoreParams, QueryOptions } from './event-store.js';
export { EventStoreError } from './event-store-error.js';
export { encodeRows, type EncodedRows } from './json-each-row.js';
export { ChdbEventStore, type ChdbEventStoreOptions } from './chdb-event-store.js';
export { ClickHouseEventStore, type ClickHouseEventStoreOptions } from './clickhouse-event-store.js';
export { LazyEventStore, type LazyEventStoreOptions } from './lazy-event-store.js';
export { openEventStore, type OpenEventStoreOptions } from './open-event-store.js';
export {
  runEventMigrations,
  EventMigrationError,
  type RunEventMigrationsOptions,
  type EventMigrationsResult,
} from './migrate.js';
export { toClusterDdl, localTableName, type ClusterDdlOptions } from './cluster-ddl.js';
export { deleteRows, deleteRowsStatement } from './row-deletes.js';
export { applyEventsRetention, retentionStatements, RETENTION_TABLES } from './retention.js';
