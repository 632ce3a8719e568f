import type { EventStore, EventStoreParams } from './event-store.js';
import { localTableName } from './cluster-ddl.js';
import { assertDatabaseName, assertTableName } from './identifier.js';

/**
 * The lightweight DELETE of rows matching `where` (a parameterized condition,
 * values bound as `{name:Type}`). On one server it names the table; in cluster
 * mode a Distributed table cannot be deleted from, so it names each shard's
 * Replicated local table `ON CLUSTER` (the same placement the migrations use).
 */
export function deleteRowsStatement(store: Pick<EventStore, 'database' | 'cluster'>, table: string, where: string): string {
  assertTableName(table);
  if (!store.cluster) return `DELETE FROM ${table} WHERE ${where}`;
  const cluster = assertDatabaseName(store.cluster);
  return `DELETE FROM ${assertDatabaseName(store.database)}.${localTableName(table)} ON CLUSTER ${cluster} WHERE ${where}`;
}

/** Deletes rows (rows vanish from queries at once; parts are rewritten later). Idempotent. */
export async function deleteRows(store: EventStore, table: string, where: string, params: EventStoreParams): Promise<void> {
  await store.command(deleteRowsStatement(store, table, where), params);
}
