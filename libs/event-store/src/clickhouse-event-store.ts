import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { dedupSettings, SHARED_CLICKHOUSE_SETTINGS, querySettings } from './clickhouse-settings.js';
import type { EventStore, EventStoreParams, QueryOptions } from './event-store.js';
import { toEventStoreError } from './event-store-error.js';
import { assertColumnName, assertDatabaseName, assertTableName } from './identifier.js';
import { stringifyRow, type EncodedRows } from './json-each-row.js';
import { normalizeParams } from './query-params.js';
import { traced } from './tracing.js';

export interface ClickHouseEventStoreOptions {
  /** HTTP(S) URL of the server; may carry `user:password@`. */
  url: string;
  /**
   * Database for unqualified table names; created if missing. Default: the
   * URL's path (`http://host:8123/mydb`) if it names one, else `sightline`.
   */
  database?: string;
  /** ClickHouse cluster of Replicated + Distributed tables (`CLICKHOUSE_CLUSTER`); see EventStore.cluster. */
  cluster?: string;
  /** Per-request timeout (default 300 s: synchronous mutations can be slow). */
  requestTimeoutMs?: number;
}

/**
 * EventStore on a ClickHouse server through @clickhouse/client (HTTP).
 *
 * The client's own error logging is switched off: every failure is rethrown to
 * the caller as an EventStoreError, so logging it here too would double-report.
 */
export class ClickHouseEventStore implements EventStore {
  readonly kind = 'clickhouse' as const;
  readonly database: string;
  readonly cluster?: string;
  #client: ClickHouseClient;
  #closed = false;

  private constructor(client: ClickHouseClient, database: string, cluster: string | undefined) {
    this.#client = client;
    this.database = database;
    if (cluster !== undefined) this.cluster = assertDatabaseName(cluster);
  }

  static async open(options: ClickHouseEventStoreOptions): Promise<ClickHouseEventStore> {
    const { url, database } = splitDatabaseFromUrl(options);
    // The database may not exist yet, so the first connection names none.
    const bootstrap = makeClient(url, options, undefined);
    try {
      await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS \`${database}\`` });
    } catch (error) {
      throw toEventStoreError(error);
    } finally {
      await bootstrap.close();
    }
    return new ClickHouseEventStore(makeClient(url, options, database), database, options.cluster);
  }

  async query<R = Record<string, unknown>>(sql: string, params?: EventStoreParams, options?: QueryOptions): Promise<R[]> {
    return traced('query', this.#target(sql), async () => {
      this.#assertOpen();
      const settings = querySettings(options);
      try {
        const result = await this.#client.query({
          query: sql,
          format: 'JSONEachRow',
          query_params: normalizeParams(params),
          ...(settings ? { clickhouse_settings: settings } : {}),
        });
        return await result.json<R>();
      } catch (error) {
        throw toEventStoreError(error);
      }
    });
  }

  async writeFile(sql: string, params: EventStoreParams | undefined, format: 'Parquet', path: string, settings?: Record<string, number>): Promise<void> {
    await traced('query', this.#target(sql), async () => {
      this.#assertOpen();
      try {
        const result = await this.#client.query({
          query: sql,
          format,
          query_params: normalizeParams(params),
          ...(settings ? { clickhouse_settings: settings } : {}),
        });
        await pipeline(result.stream(), createWriteStream(path));
      } catch (error) {
        throw toEventStoreError(error);
      }
    });
  }

  async command(sql: string, params?: EventStoreParams): Promise<void> {
    await traced('command', this.#target(sql), async () => {
      this.#assertOpen();
      try {
        await this.#client.command({ query: sql, query_params: normalizeParams(params) });
      } catch (error) {
        throw toEventStoreError(error);
      }
    });
  }

  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    assertTableName(table);
    const statement = `INSERT INTO ${table} FORMAT JSONEachRow`;
    const attributes = { 'db.sql.table': table, 'db.operation.batch.size': rows.length };
    await traced('insert', this.#target(statement, attributes), async () => {
      if (rows.length === 0) return;
      this.#assertOpen();
      try {
        await this.#client.insert({
          table,
          values: rows as Record<string, unknown>[],
          format: 'JSONEachRow',
          clickhouse_settings: dedupSettings(),
        });
      } catch (error) {
        throw toEventStoreError(error);
      }
    });
  }

  async insertEncoded(table: string, rows: EncodedRows): Promise<void> {
    assertTableName(table);
    // the client encodes JSON formats itself from objects: already encoded text goes as exec's body
    const columns = rows.columns ? ` (${rows.columns.map(quoteColumn).join(', ')})` : '';
    const statement = `INSERT INTO ${table}${columns} FORMAT ${rows.format}`;
    const attributes = { 'db.sql.table': table, 'db.operation.batch.size': rows.rows };
    await traced('insert', this.#target(statement, attributes), async () => {
      if (rows.rows === 0) return;
      this.#assertOpen();
      try {
        const result = await this.#client.exec({
          query: statement,
          values: Readable.from([Buffer.from(rows.payload)]),
          clickhouse_settings: dedupSettings(rows.dedupToken),
        });
        // drain the (empty) answer so the connection goes back to the pool
        for await (const _chunk of result.stream);
      } catch (error) {
        throw toEventStoreError(error);
      }
    });
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    const result = await this.#client.ping();
    if (!result.success) throw toEventStoreError(result.error);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('ClickHouseEventStore is closed');
  }

  #target(statement: string, attributes?: Record<string, string | number>) {
    return { adapter: this.kind, database: this.database, statement, attributes };
  }
}

/**
 * @clickhouse/client reads a database from the URL path and lets it override the
 * `database` option; we resolve the two here, once, and hand the client a URL
 * without a path so the bootstrap connection really names no database.
 */
function splitDatabaseFromUrl(options: ClickHouseEventStoreOptions): { url: string; database: string } {
  const url = new URL(options.url);
  const fromPath = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  if (fromPath && options.database && fromPath !== options.database) {
    throw new Error(`ClickHouse URL names database "${fromPath}" but the database option is "${options.database}"`);
  }
  url.pathname = '/';
  return { url: url.toString(), database: assertDatabaseName(options.database ?? (fromPath || 'sightline')) };
}

function makeClient(url: string, options: ClickHouseEventStoreOptions, database: string | undefined): ClickHouseClient {
  return createClient({
    url,
    ...(database ? { database } : {}),
    request_timeout: options.requestTimeoutMs ?? 300_000,
    clickhouse_settings: { ...SHARED_CLICKHOUSE_SETTINGS },
    // Same row encoding as the chDB adapter (bigint-safe).
    json: { stringify: stringifyRow },
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/** A column of an encoded insert, quoted; the name passed the same whitelist as a table's. */
function quoteColumn(column: string): string {
  return `\`${assertColumnName(column)}\``;
}
