import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Remembers, per Db instance, whether the current async context is inside one of
 * its `transaction()` callbacks. Calling `db.query()` there (instead of `tx.query()`)
 * is always a bug: on PGlite it waits for the open transaction forever, on a pg pool
 * it silently runs outside the transaction (or deadlocks when the pool is full).
 * Failing fast turns both into a clear error.
 */
export class TransactionScope {
  private readonly storage = new AsyncLocalStorage<{ open: boolean }>();

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const state = { open: true };
    try {
      return await this.storage.run(state, fn);
    } finally {
      // Work started inside the callback may outlive it; once closed it is free to use the Db.
      state.open = false;
    }
  }

  assertOutside(method: string): void {
    if (this.storage.getStore()?.open) {
      throw new Error(`db.${method}() was called inside db.transaction(); use the tx handle passed to the callback`);
    }
  }
}
