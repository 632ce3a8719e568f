import type { EventStore, EventStoreParams, QueryOptions } from './event-store.js';
import type { EncodedRows } from './json-each-row.js';

export interface LazyEventStoreOptions {
  kind: EventStore['kind'];
  database: string;
  /** Opens the real store; called on the first statement, again after a failed open. */
  open(): Promise<EventStore>;
  /** Health while nothing has been opened: must not open the store (e.g. checks its directory). */
  pingUnopened(): Promise<void>;
}

/**
 * An EventStore that opens its real store on the first query, command or insert.
 *
 * Why: embedded chDB costs about 200 MB of memory the moment it is loaded (the
 * engine library plus a session). An idle single-process install — or one whose
 * events store is only ever read — should not pay that until an event or a
 * report needs it. Health checks do not open it (`pingUnopened`).
 *
 * Work that must precede every caller's first statement (the services' events
 * migrations) is queued with `beforeFirstUse` and runs inside the opening; if any
 * of it fails, the store is closed again and the next statement retries all of it.
 */
export class LazyEventStore implements EventStore {
  readonly kind: EventStore['kind'];
  readonly database: string;
  readonly #options: LazyEventStoreOptions;
  readonly #hooks: Array<(store: EventStore) => Promise<void>> = [];
  #opening: Promise<EventStore> | undefined;
  #opened = false;
  #closed = false;

  constructor(options: LazyEventStoreOptions) {
    this.kind = options.kind;
    this.database = options.database;
    this.#options = options;
  }

  /** True once the real store has been opened and its first-use work done. */
  get opened(): boolean {
    return this.#opened;
  }

  /**
   * Runs `hook` on the real store before anyone else uses it. Already opened (or
   * opening): the hook runs now, and statements issued after this call wait for it.
   */
  async beforeFirstUse(hook: (store: EventStore) => Promise<void>): Promise<void> {
    this.#assertOpen();
    this.#hooks.push(hook);
    const opening = this.#opening;
    if (!opening) return;
    const chained = opening.then(async (store) => {
      await hook(store);
      return store;
    });
    this.#opening = chained;
    try {
      await chained;
    } catch (error) {
      // the store itself is fine: later statements must not inherit this hook's failure
      if (this.#opening === chained) this.#opening = this.#opened ? opening : undefined;
      throw error;
    }
  }

  async query<R = Record<string, unknown>>(sql: string, params?: EventStoreParams, options?: QueryOptions): Promise<R[]> {
    return (await this.#store()).query<R>(sql, params, options);
  }

  async writeFile(...args: Parameters<NonNullable<EventStore['writeFile']>>): Promise<void> {
    const store = await this.#store();
    if (!store.writeFile) throw new Error('this events store cannot write files');
    await store.writeFile(...args);
  }

  async command(sql: string, params?: EventStoreParams): Promise<void> {
    await (await this.#store()).command(sql, params);
  }

  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    await (await this.#store()).insert(table, rows);
  }

  async insertEncoded(table: string, rows: EncodedRows): Promise<void> {
    await (await this.#store()).insertEncoded(table, rows);
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    const opening = this.#opening;
    if (!opening) return this.#options.pingUnopened();
    await (await opening).ping();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const opening = this.#opening;
    if (!opening) return;
    const store = await opening.catch(() => undefined);
    await store?.close();
  }

  #store(): Promise<EventStore> {
    this.#assertOpen();
    this.#opening ??= this.#open();
    return this.#opening;
  }

  async #open(): Promise<EventStore> {
    const store = await this.#options.open().catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    try {
      for (const hook of this.#hooks) await hook(store);
    } catch (error) {
      this.#opening = undefined;
      await store.close().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      // closed while opening: do not leave the engine held
      await store.close();
      throw new Error('LazyEventStore was closed while it opened');
    }
    this.#opened = true;
    return store;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`LazyEventStore (${this.kind}, ${this.database}) is closed`);
  }
}
