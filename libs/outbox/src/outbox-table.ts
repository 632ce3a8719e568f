import { createHash } from 'node:crypto';
import type { Db, Queryable } from '@sightline/db';

/** `<schema>.outbox`, with the schema checked as a plain identifier (it is interpolated). */
export function outboxTable(schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid outbox schema name: ${schema}`);
  return `${schema}.outbox`;
}

/**
 * The outbox table of a service's schema, defined once here (it used to be copied into
 * each service's first migration; those applied files stay as they are, and this DDL is
 * exactly what they created, so over an old install every statement is a no-op).
 *
 * - `message_id`: the bus deduplication id, unique across databases (row ids restart
 *   in a new database, and a NATS server shared by several would drop a repeated msgId).
 * - `created_at` has no default: every timestamp comes from the service's clock, so tests
 *   that move time and the rows they read agree.
 * - `outbox_unpublished` serves the relay's scan, `outbox_published_at` the sweep.
 */
export function outboxTableDdl(schema: string): string[] {
  const table = outboxTable(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE IF NOT EXISTS ${table} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id uuid NOT NULL DEFAULT gen_random_uuid(),
  subject text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  published_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  CONSTRAINT outbox_subject_length CHECK (length(subject) BETWEEN 1 AND 200)
)`,
    `CREATE INDEX IF NOT EXISTS outbox_unpublished ON ${table} (id) WHERE published_at IS NULL`,
    `CREATE INDEX IF NOT EXISTS outbox_published_at ON ${table} (published_at) WHERE published_at IS NOT NULL`,
  ];
}

/** A stable int8 per schema; the same key for every replica of a service. */
function lockKey(schema: string): string {
  return createHash('sha256').update(`@sightline/outbox:table:${schema}`).digest().readBigInt64BE(0).toString();
}

/**
 * Creates `<schema>.outbox` and its indexes when missing; a no-op when they exist.
 * A service calls it at start, before its relay runs, so a new install has its outbox
 * without any migration of its own. Replicas starting together take turns on an
 * advisory lock: concurrent `CREATE … IF NOT EXISTS` of one table can still collide.
 */
export async function ensureOutboxTable(db: Db, schema: string): Promise<void> {
  const statements = outboxTableDdl(schema);
  await db.transaction(async (tx: Queryable) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(schema)]);
    for (const statement of statements) await tx.query(statement);
  });
}
