import { ApiError } from '@sightline/errors';
import { EventStoreError, type EventStore, type EventStoreParams, type QueryOptions } from '@sightline/event-store';

/** ClickHouse's MEMORY_LIMIT_EXCEEDED: a query's own limit, or the whole engine's. */
const MEMORY_LIMIT_EXCEEDED = 241;

/**
 * The events store as the query service reads it: every statement carries the
 * per-query memory limit (`QUERY_MAX_MEMORY_BYTES`, ClickHouse `max_memory_usage`),
 * so one report cannot grow the shared engine without bound (issue 29), and a
 * breach answers a documented error instead of 500:
 * - the report's own limit → 422 `query_too_large` (the same report fails the same
 *   way: narrow it);
 * - the engine's total limit (other work holds the memory) → 503 `unavailable`.
 */
export class BoundedReads implements EventStore {
  readonly kind: EventStore['kind'];
  readonly database: string;
  readonly cluster?: string;

  constructor(
    private readonly store: EventStore,
    private readonly maxMemoryBytes: number,
  ) {
    this.kind = store.kind;
    this.database = store.database;
    if (store.cluster !== undefined) this.cluster = store.cluster;
  }

  async query<R = Record<string, unknown>>(sql: string, params?: EventStoreParams, options?: QueryOptions): Promise<R[]> {
    try {
      return await this.store.query<R>(sql, params, { maxMemoryBytes: this.maxMemoryBytes, ...options });
    } catch (error) {
      throw memoryLimitAnswer(error) ?? error;
    }
  }

  /** The same per-statement memory limit as every read (a Parquet export's statement). */
  async writeFile(sql: string, params: EventStoreParams | undefined, format: 'Parquet', path: string, settings?: Record<string, number>): Promise<void> {
    if (!this.store.writeFile) throw new Error('this events store cannot write files');
    try {
      await this.store.writeFile(sql, params, format, path, { ...(this.maxMemoryBytes > 0 ? { max_memory_usage: this.maxMemoryBytes } : {}), ...settings });
    } catch (error) {
      throw memoryLimitAnswer(error) ?? error;
    }
  }

  command(sql: string, params?: EventStoreParams): Promise<void> {
    return this.store.command(sql, params);
  }

  insert(...args: Parameters<EventStore['insert']>): Promise<void> {
    return this.store.insert(...args);
  }

  insertEncoded(...args: Parameters<EventStore['insertEncoded']>): Promise<void> {
    return this.store.insertEncoded(...args);
  }

  ping(): Promise<void> {
    return this.store.ping();
  }

  /** The store is the launcher's: it closes it. */
  async close(): Promise<void> {}
}

function memoryLimitAnswer(error: unknown): ApiError | undefined {
  if (!(error instanceof EventStoreError) || error.code !== MEMORY_LIMIT_EXCEEDED) return undefined;
  // "Query memory limit exceeded" vs "Memory limit (total) exceeded"
  if (/\(total\)/i.test(error.message))
    return new ApiError('unavailable', 'The analytics engine is short of memory right now; retry shortly.', { retryAfterSeconds: 5 });
  return new ApiError('query_too_large');
}
