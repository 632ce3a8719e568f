// Type only: the 566 MB engine library is loaded by `open`, never by importing this lib.
import type { Session } from 'chdb';
import { mkdir } from 'node:fs/promises';
import { embeddedEngineArgs } from './chdb-engine-bounds.js';
import { acquireChdbDataDir } from './chdb-process-slot.js';
import { SHARED_CLICKHOUSE_SETTINGS, dedupSettings, querySettings, settingsAsConnectionArgs } from './clickhouse-settings.js';
import type { EventStore, EventStoreParams, QueryOptions } from './event-store.js';
import { EventStoreError, toEventStoreError } from './event-store-error.js';
import { assertColumnName, assertDatabaseName, assertTableName } from './identifier.js';
import { encodeRows, parseJsonEachRow, type EncodedRows } from './json-each-row.js';
import { normalizeParams } from './query-params.js';
import { isMultiStatement } from './split-sql-statements.js';
import { traced } from './tracing.js';

export interface ChdbEventStoreOptions {
  /** chDB data directory (created if missing), e.g. `<dataDir>/events`. */
  path: string;
  /** Database for unqualified table names; created if missing. Default `sightline`. */
  database?: string;
  /** Most memory the engine as a whole may hold (`max_server_memory_usage`); process-wide, set by the first store opened. */
  maxMemoryBytes?: number;
}

/** After this long without a statement the engine hands its freed memory back to the system. */
const IDLE_PURGE_MS = 10_000;

/**
 * EventStore on chDB: the ClickHouse engine inside this process.
 *
 * Every call goes through chDB's async API (work runs on the libuv pool, the
 * event loop never waits on a query). Values are bound server-side with
 * `{name:Type}` placeholders; rows are inserted as one JSONEachRow payload that
 * the engine parses itself.
 *
 * Like a ClickHouse server (and unlike chDB itself) it refuses several
 * statements in one call, so code written against chDB keeps working in
 * production.
 *
 * chDB holds one data directory per process. Opening a second store on the SAME
 * directory is allowed (each store has its own connection and its own current
 * database); a DIFFERENT directory is refused until every store on the first one
 * has closed (see chdb-process-slot.ts).
 */
export class ChdbEventStore implements EventStore {
  readonly kind = 'chdb' as const;
  readonly database: string;
  readonly path: string;
  #session: Session;
  #release: () => Promise<void>;
  #closed = false;
  #idlePurge: NodeJS.Timeout | undefined;

  private constructor(session: Session, path: string, database: string, release: () => Promise<void>) {
    this.#session = session;
    this.path = path;
    this.database = database;
    this.#release = release;
  }

  static async open(options: ChdbEventStoreOptions): Promise<ChdbEventStore> {
    const database = assertDatabaseName(options.database ?? 'sightline');
    await mkdir(options.path, { recursive: true });
    const release = await acquireChdbDataDir(options.path);
    let session: Session | undefined;
    try {
      const { Session } = await import('chdb');
      session = new Session(options.path, {
        connectionArgs: [...settingsAsConnectionArgs(SHARED_CLICKHOUSE_SETTINGS), ...embeddedEngineArgs(options.maxMemoryBytes)],
      });
      // The name passed the identifier whitelist; DDL cannot bind identifiers everywhere.
      await session.queryAsync(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
      // USE is per connection, and this connection is ours alone.
      await session.queryAsync(`USE \`${database}\``);
      return new ChdbEventStore(session, options.path, database, release);
    } catch (error) {
      session?.close();
      if ((error as { code?: unknown }).code === 'CHDB_PLATFORM') {
        // releasing the slot would load chDB again (and fail again)
        await release().catch(() => {});
        throw embeddedEngineMissing(error);
      }
      await release();
      throw toEventStoreError(error);
    }
  }

  async query<R = Record<string, unknown>>(sql: string, params?: EventStoreParams, options?: QueryOptions): Promise<R[]> {
    return traced('query', this.#target(sql), async () => {
      try {
        const text = await this.#run(withSettingsClause(sql, querySettings(options)), params, 'JSONEachRow');
        return parseJsonEachRow<R>(text);
      } finally {
        this.#armIdlePurge();
      }
    });
  }

  async writeFile(sql: string, params: EventStoreParams | undefined, format: 'Parquet', path: string, settings?: Record<string, number>): Promise<void> {
    // the path is ours (a temporary file name), never request data: INTO OUTFILE takes only a literal
    if (!/^[\w./-]+$/.test(path)) throw new Error(`unsafe output path ${path}`);
    const clause = settings
      ? `\nSETTINGS ${Object.entries(settings)
          .map(([name, value]) => `${name} = ${Math.trunc(value)}`)
          .join(', ')}`
      : '';
    await traced('query', this.#target(sql), async () => {
      await this.#run(`${sql.trimEnd()}\nINTO OUTFILE '${path}' TRUNCATE FORMAT ${format}${clause}`, params, 'JSONEachRow');
    });
  }

  async command(sql: string, params?: EventStoreParams): Promise<void> {
    await traced('command', this.#target(sql), async () => {
      try {
        await this.#run(sql, params, 'TabSeparated');
      } finally {
        this.#armIdlePurge();
      }
    });
  }

  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    // positional rows where every row has the same keys (ingest's do): less text to write and parse
    await this.#insertEncoded(table, encodeRows(rows));
  }

  insertEncoded(table: string, rows: EncodedRows): Promise<void> {
    return this.#insertEncoded(table, rows);
  }

  // private, so a wrapper of either public method (a bench counting rows) never sees the other's calls
  async #insertEncoded(table: string, rows: EncodedRows): Promise<void> {
    assertTableName(table);
    rows.columns?.forEach(assertColumnName);
    const statement = `INSERT INTO ${table} FORMAT ${rows.format}`;
    await traced('insert', this.#target(statement, { 'db.sql.table': table, 'db.operation.batch.size': rows.rows }), async () => {
      if (rows.rows === 0) return;
      this.#assertOpen();
      try {
        await this.#session.insert({
          table,
          values: rows.payload,
          format: rows.format,
          ...(rows.columns ? { columns: rows.columns } : {}),
          settings: dedupSettings(rows.dedupToken),
        });
      } catch (error) {
        throw toEventStoreError(error);
      } finally {
        this.#armIdlePurge();
      }
    });
  }

  async ping(): Promise<void> {
    await this.#run('SELECT 1', undefined, 'TabSeparated');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idlePurge);
    this.#session.close();
    await this.#release();
  }

  async #run(sql: string, params: EventStoreParams | undefined, format: string): Promise<string> {
    this.#assertOpen();
    if (isMultiStatement(sql)) {
      throw new EventStoreError('Syntax error (Multi-statements are not allowed)', { code: 62, type: 'SYNTAX_ERROR' });
    }
    try {
      const bound = normalizeParams(params);
      const result =
        Object.keys(bound).length > 0 ? await this.#session.queryBindAsync(sql, bound, { format }) : await this.#session.queryAsync(sql, { format });
      return result.text();
    } catch (error) {
      throw toEventStoreError(error);
    }
  }

  /**
   * The engine's allocator keeps pages freed by a big statement (an import, a
   * report) for reuse; in one process with everything else they would stay resident
   * for good. Once no statement (pings aside) has run for IDLE_PURGE_MS they go back to the system.
   */
  #armIdlePurge(): void {
    clearTimeout(this.#idlePurge);
    this.#idlePurge = setTimeout(() => {
      if (!this.#closed) this.#session.queryAsync('SYSTEM JEMALLOC PURGE').catch(() => {});
    }, IDLE_PURGE_MS);
    this.#idlePurge.unref();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`ChdbEventStore at ${this.path} is closed`);
  }

  #target(statement: string, attributes?: Record<string, string | number>) {
    return { adapter: this.kind, database: this.database, statement, attributes };
  }
}

/**
 * chDB's query API takes no per-call settings, so they go into the statement as its
 * SETTINGS clause (after a newline: a trailing `--` comment cannot swallow it). Names are
 * ours and values whole numbers (querySettings), never request data.
 */
function withSettingsClause(sql: string, settings: Record<string, string> | undefined): string {
  if (!settings) return sql;
  return `${sql.trimEnd().replace(/;$/, '')}\nSETTINGS ${Object.entries(settings)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ')}`;
}

/** chDB's native engine is absent (the image built with EMBEDDED_CLICKHOUSE=false, or an unsupported platform). */
function embeddedEngineMissing(error: unknown): EventStoreError {
  const detail = error instanceof Error ? error.message : String(error);
  return new EventStoreError(`the embedded ClickHouse engine (chDB) is not installed here; set CLICKHOUSE_URL to a ClickHouse server. ${detail}`, {
    type: 'EMBEDDED_ENGINE_MISSING',
    cause: error,
  });
}
