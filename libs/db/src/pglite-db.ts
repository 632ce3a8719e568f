// Type only: importing PGlite costs ~50 MB; a process on PostgreSQL never loads it (see create).
import type { PGlite, Results, Transaction } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './db.js';
import { traceQuery, traceTransaction } from './tracing.js';
import { TransactionScope } from './transaction-scope.js';
import { TEXT_PARSERS } from './type-parsers.js';
import { initPgliteDataDir, PGLITE_START_PARAMS } from './pglite-memory.js';

/** What both a PGlite instance and one of its transactions can run. */
type PgliteRunner = Pick<PGlite, 'query' | 'exec'> | Transaction;

function toQueryResult<R>(result: Results<R> | undefined): QueryResult<R> {
  return { rows: result?.rows ?? [], rowCount: result?.rowCount ?? 0 };
}

/**
 * PGlite attaches the statement's parameter values to its errors; they may hold
 * personal data (emails, hashes) and errors get logged, so drop them. The error
 * object itself is kept (same instance, same `code`).
 */
function withoutParams(err: unknown): unknown {
  if (err && typeof err === 'object' && 'params' in err) {
    delete (err as { params?: unknown }).params;
    delete (err as { queryOptions?: unknown }).queryOptions;
  }
  return err;
}

function runQuery<R>(runner: PgliteRunner, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
  return traceQuery(sql, async () => {
    try {
      if (params && params.length > 0) return toQueryResult(await runner.query<R>(sql, [...params]));
      // No params → simple protocol, like pg: several statements allowed, the last one answers.
      const results = await runner.exec(sql);
      return toQueryResult(results[results.length - 1] as Results<R> | undefined);
    } catch (err) {
      throw withoutParams(err);
    }
  });
}

/**
 * Embedded adapter: PGlite (Postgres in WASM) in this process, on disk or in memory.
 *
 * PGlite is a single connection. Its own `transaction()` holds a mutex that its
 * public `query()`/`exec()` also take, so concurrent transactions and plain queries
 * issued while one is open queue behind it instead of running inside it. We rely on
 * that rather than adding a second lock (pinned by tests in pglite-db.test.ts).
 * One data directory must only be opened by one PgliteDb at a time.
 */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  private readonly scope = new TransactionScope();
  private closing: Promise<void> | undefined;

  private constructor(private readonly pglite: PGlite) {}

  /** Opens (initialising on first use) the database in `dataDir`, or an in-memory one without it. Takes a few seconds. */
  static async create(dataDir?: string): Promise<PgliteDb> {
    if (dataDir) await initPgliteDataDir(dataDir);
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create({ ...(dataDir ? { dataDir } : {}), startParams: PGLITE_START_PARAMS, parsers: { ...TEXT_PARSERS } });
    return new PgliteDb(pglite);
  }

  async query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    this.scope.assertOutside('query');
    return runQuery<R>(this.pglite, sql, params);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.scope.assertOutside('transaction');
    return traceTransaction(() =>
      // PGlite's transaction(): BEGIN, COMMIT, ROLLBACK + rethrow on error, and a
      // 25P02 error when COMMIT finds the transaction aborted.
      this.pglite.transaction((pgliteTx) => {
        const tx: Queryable = { query: <R>(sql: string, params?: readonly unknown[]) => runQuery<R>(pgliteTx, sql, params) };
        return this.scope.run(() => fn(tx));
      }),
    );
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** Waits for queued work, then shuts PGlite down (flushing to disk). Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.pglite.close();
    return this.closing;
  }
}
