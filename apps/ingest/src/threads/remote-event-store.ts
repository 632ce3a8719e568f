import { encodeRows, type EncodedRows, type EventStore, type EventStoreParams } from '@sightline/event-store';
import type { MainThread } from './main-thread.js';

/**
 * The events store as a pipeline worker sees it: every statement runs on the main
 * thread, which owns the store (embedded chDB is one per process). Rows are encoded
 * here, so the main thread's share of an insert is handing the bytes to the engine.
 */
export class RemoteEventStore implements EventStore {
  constructor(
    private readonly main: MainThread,
    readonly kind: EventStore['kind'],
    readonly database: string,
    readonly cluster?: string,
  ) {}

  query<R = Record<string, unknown>>(sql: string, params?: EventStoreParams): Promise<R[]> {
    return this.main.call<R[]>({ op: 'query', sql, params });
  }

  async command(sql: string, params?: EventStoreParams): Promise<void> {
    await this.main.call({ op: 'command', sql, params });
  }

  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    return this.insertEncoded(table, encodeRows(rows));
  }

  async insertEncoded(table: string, rows: EncodedRows): Promise<void> {
    const { payload } = rows;
    // moved, not copied, when the bytes own their buffer (a small Buffer shares Node's pool: copied)
    const owned = payload.byteOffset === 0 && payload.byteLength === payload.buffer.byteLength && payload.buffer instanceof ArrayBuffer;
    await this.main.call({ op: 'insert', table, rows }, owned ? [payload.buffer as ArrayBuffer] : undefined);
  }

  async ping(): Promise<void> {
    await this.main.call({ op: 'ping' });
  }

  /** The store is the main thread's: it closes it. */
  async close(): Promise<void> {}
}
