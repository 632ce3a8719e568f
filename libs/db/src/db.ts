/**
 * The relational store as every service sees it. Two adapters implement it:
 * `PgDb` (node-postgres pool, production) and `PgliteDb` (embedded PGlite, single
 * process). Services always qualify table names with their own schema
 * (`identity.accounts`), so one database — or one PGlite — can hold every service.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  /**
   * Parameterized SQL only: `$1, $2 …` placeholders, values in `params`.
   * Without params the text may hold several statements (a migration script);
   * the result is then the last statement's.
   */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs `fn` in one transaction: commits when it resolves, rolls back when it
   * throws (and rethrows). All statements must go through the `tx` handle.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers `SELECT 1`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
