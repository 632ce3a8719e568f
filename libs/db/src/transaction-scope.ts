import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * On in tests (vitest sets VITEST, and processes they start inherit it) or with
 * SIGHTLINE_CHECK_TRANSACTIONS=1; off in production. On Node 20 the first
 * AsyncLocalStorage.run installs promise hooks that then run for every promise of the
 * process: with the check on, ingest stores measurably fewer events/s
 * (`npm run bench -- ingestion`) and every request pays for the hooks.
 */
const CHECK_TRANSACTION_SCOPE = process.env.VITEST !== undefined || process.env.SIGHTLINE_CHECK_TRANSACTIONS === '1';

/**
 * Remembers, per Db instance, whether the current async context is inside one of
 * its `transaction()` callbacks. Calling `db.query()` there (instead of `tx.query()`)
 * is always a bug: on PGlite it waits for the open transaction forever, on a pg pool
 * it silently runs outside the transaction (or deadlocks when the pool is full).
 * Failing fast turns both into a clear error — a development check, see above.
 */
export class TransactionScope {
  private readonly storage = CHECK_TRANSACTION_SCOPE ? new AsyncLocalStorage<{ open: boolean }>() : undefined;

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.storage) return fn();
    const state = { open: true };
    try {
      return await this.storage.run(state, fn);
    } finally {
      // Work started inside the callback may outlive it; once closed it is free to use the Db.
      state.open = false;
    }
  }

  assertOutside(method: string): void {
    if (this.storage?.getStore()?.open) {
      throw new Error(`db.${method}() was called inside db.transaction(); use the tx handle passed to the callback`);
    }
  }
}
