import type { EventStore } from './event-store.js';
import { localTableName, toClusterDdl } from './cluster-ddl.js';

/**
 * EVENTS_RETENTION_DAYS: a ClickHouse TTL on the raw tables — an event goes N days
 * after its time, a visit's rows N days after its last event — while the hourly
 * roll-ups (migrations 0009, 0010) keep their aggregates. Applied at start-up after
 * the migrations; unset removes a TTL set before. The TTL is not materialized at once
 * (`materialize_ttl_after_modify = 0`: no rewrite of every part); rows go as parts
 * merge, so a query never relies on their absence, only on rows newer than the
 * horizon being there (apps/query/src/query/run-query.ts).
 */
export const RETENTION_TABLES = ['events', 'sessions'] as const;

/** The TTL statements for `days` (a validated integer: DDL takes no parameters), or the removals when unset. */
export function retentionStatements(days: number | undefined, hasTtl: Record<string, boolean>): string[] {
  if (days !== undefined && (!Number.isSafeInteger(days) || days < 1)) throw new Error('EVENTS_RETENTION_DAYS must be a positive integer');
  return RETENTION_TABLES.flatMap((table) => {
    if (days === undefined) return hasTtl[table] ? [`ALTER TABLE ${table} REMOVE TTL`] : [];
    return [`ALTER TABLE ${table} MODIFY TTL toDateTime(timestamp) + toIntervalDay(${days})`];
  });
}

export async function applyEventsRetention(store: EventStore, days: number | undefined, cluster?: string): Promise<void> {
  const hasTtl: Record<string, boolean> = {};
  for (const table of RETENTION_TABLES) {
    const name = cluster ? localTableName(table) : table;
    const [row] = await store.query<{ ttl: number | boolean }>(
      "SELECT position(engine_full, ' TTL ') > 0 AS ttl FROM system.tables WHERE database = currentDatabase() AND name = {name:String}",
      { name },
    );
    hasTtl[table] = Number(row?.ttl ?? 0) > 0;
  }
  for (const statement of retentionStatements(days, hasTtl)) {
    const statements = cluster ? toClusterDdl(statement, { cluster, database: store.database }) : [statement];
    for (const sql of statements) await store.command(`${sql} SETTINGS materialize_ttl_after_modify = 0`);
  }
}
