import pg from 'pg';
import type { Db, Queryable, QueryResult } from './db.js';
import { traceQuery, traceTransaction } from './tracing.js';
import { TransactionScope } from './transaction-scope.js';
import { TEXT_PARSERS, TYPE_OID } from './type-parsers.js';

export interface PgDbOptions {
  /** Maximum pooled connections (pg's `max`). Default 10. */
  poolSize?: number;
  /**
   * Called when an idle pooled connection fails (server restart, network cut). The
   * pool already discarded it; without a listener node would crash on the 'error' event.
   */
  onIdleClientError?: (err: Error) => void;
}

type TextParserLookup = (oid: number, format: 'text') => (text: string) => unknown;

/** pg's text[] (OID 1009) parser splits any array literal into (nested) strings and nulls. */
const parseTextArray = (pg.types.getTypeParser as TextParserLookup)(1009, 'text');

function mapElements(value: unknown, parse: (text: string) => unknown): unknown {
  if (Array.isArray(value)) return value.map((element) => mapElements(element, parse));
  return typeof value === 'string' ? parse(value) : value;
}

/**
 * Arrays of the re-parsed types must match their elements, as PGlite does on its
 * own (pg's defaults: int8[] → strings, numeric[] → lossy floats, date[] → Dates).
 */
const ARRAY_PARSERS: Readonly<Record<number, (text: string) => unknown>> = Object.fromEntries(
  (
    [
      [1016, TYPE_OID.int8],
      [1182, TYPE_OID.date],
      [1187, TYPE_OID.interval],
      [1231, TYPE_OID.numeric],
    ] as const
  ).map(([arrayOid, elementOid]) => {
    const parseElement = TEXT_PARSERS[elementOid]!;
    return [arrayOid, (text: string) => mapElements(parseTextArray(text), parseElement)];
  }),
);

/** Per-pool (not global `pg.types`) so other pg users in the process keep their defaults. */
const typeParsers = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    (format !== 'binary' && (TEXT_PARSERS[oid] ?? ARRAY_PARSERS[oid])) || pg.types.getTypeParser(oid, format),
} as pg.CustomTypesConfig;

function warnIdleClientError(err: Error): void {
  console.warn(`[@sightline/db] idle PostgreSQL connection failed: ${err.message}`);
}

/** A multi-statement (simple protocol) query yields one result per statement; we report the last. */
function toQueryResult<R>(raw: pg.QueryResult | pg.QueryResult[]): QueryResult<R> {
  const last = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (!last) return { rows: [], rowCount: 0 };
  return { rows: last.rows as R[], rowCount: last.rowCount ?? 0 };
}

/** Raised when COMMIT reports ROLLBACK, i.e. a statement failed but the callback swallowed the error. */
function abortedTransactionError(): Error {
  return Object.assign(new Error('Transaction was rolled back instead of committed: a statement in it failed'), {
    code: '25P02',
  });
}

/** Production adapter: a node-postgres connection pool. */
export class PgDb implements Db {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly scope = new TransactionScope();
  private closing: Promise<void> | undefined;

  constructor(connectionString: string, options: PgDbOptions = {}) {
    this.pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, types: typeParsers });
    this.pool.on('error', options.onIdleClientError ?? warnIdleClientError);
  }

  async query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    this.scope.assertOutside('query');
    return runQuery<R>(this.pool, sql, params);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.scope.assertOutside('transaction');
    return traceTransaction(async () => {
      const client = await this.pool.connect();
      let open = true;
      const tx: Queryable = {
        query: <R>(sql: string, params?: readonly unknown[]) => {
          // After release the client belongs to someone else: never let a stale handle reach it.
          if (!open) return Promise.reject(new Error('Transaction is closed'));
          return runQuery<R>(client, sql, params);
        },
      };
      let brokenConnection: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await this.scope.run(() => fn(tx));
        const commit = await client.query('COMMIT');
        if (commit.command === 'ROLLBACK') throw abortedTransactionError();
        return result;
      } catch (err) {
        // A failed ROLLBACK means the connection itself is unusable: destroy it on release.
        await client.query('ROLLBACK').catch((rollbackErr: Error) => {
          brokenConnection = rollbackErr;
        });
        throw err;
      } finally {
        open = false;
        client.release(brokenConnection ?? false);
      }
    });
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** Ends the pool once; later calls wait for the same shutdown. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}

function runQuery<R>(runner: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
  return traceQuery(sql, async () => {
    // No values → pg uses the simple protocol, which accepts several statements.
    const raw = params && params.length > 0 ? await runner.query(sql, [...params]) : await runner.query(sql);
    return toQueryResult<R>(raw as pg.QueryResult | pg.QueryResult[]);
  });
}
