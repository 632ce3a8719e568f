import type { EncodedRows } from './json-each-row.js';

/**
 * The events store as services see it. Two adapters implement it with the SAME
 * ClickHouse SQL: `ClickHouseEventStore` (@clickhouse/client, production) and
 * `ChdbEventStore` (the ClickHouse engine in-process, single process and tests).
 *
 * Parameters use ClickHouse's server-side binding syntax `{name:Type}`; values go
 * in `params`, never into the SQL text. Rows come back as plain objects
 * (JSONEachRow); 64-bit integers come back as JS numbers on both adapters.
 */
export type EventStoreParams = Record<string, unknown>;

/** Per-statement limits of a read (ClickHouse settings, the same on both adapters). */
export interface QueryOptions {
  /**
   * Most bytes the statement may use (`max_memory_usage`); past it the statement fails
   * with ClickHouse's MEMORY_LIMIT_EXCEEDED (code 241) instead of growing the engine.
   * 0 or unset: the store's own default.
   */
  maxMemoryBytes?: number;
}

export interface EventStore {
  readonly kind: 'clickhouse' | 'chdb';
  /** The database the tables live in (unqualified table names resolve to it). */
  readonly database: string;
  /**
   * ClickHouse cluster name (`CLICKHOUSE_CLUSTER`) when the tables are Replicated
   * `<table>_local` tables behind Distributed ones; row deletes must then name the
   * local tables `ON CLUSTER` (see row-deletes.ts). Unset on one server and chDB.
   */
  readonly cluster?: string;
  query<R = Record<string, unknown>>(sql: string, params?: EventStoreParams, options?: QueryOptions): Promise<R[]>;
  /**
   * Runs a SELECT and writes its whole result in ClickHouse's own `format` writer to
   * the local file `path` (created or truncated), never holding it in this process:
   * chDB writes the file itself (INTO OUTFILE), a server's answer streams into it.
   * `sql` carries no FORMAT or SETTINGS clause; `settings` are whole numbers of ours.
   * Optional: stores that only ingest (test doubles, ingest's worker threads) lack it.
   */
  writeFile?(sql: string, params: EventStoreParams | undefined, format: 'Parquet', path: string, settings?: Record<string, number>): Promise<void>;
  /** DDL and mutations; nothing is returned. */
  command(sql: string, params?: EventStoreParams): Promise<void>;
  /** Inserts rows as JSONEachRow into `table`; unknown keys are an error. */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /** Inserts rows encoded beforehand (`encodeRows`, maybe on another thread); same rules as insert. */
  insertEncoded(table: string, rows: EncodedRows): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
