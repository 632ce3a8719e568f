import type { Queryable } from '@sightline/db';

/**
 * What a table is, read from the catalogue: columns (type, nullability, default,
 * identity), constraints and indexes, each as PostgreSQL prints it, with the schema
 * name replaced by `<schema>` so tables in different schemas compare. Two tables
 * with equal shapes were created by equivalent DDL. NOT NULL is read from the
 * columns only (PostgreSQL 18 also lists it as a constraint, PGlite's 17 does not).
 */
export interface TableShape {
  columns: Array<{ name: string; type: string; nullable: string; default: string | null; identity: string | null }>;
  constraints: Array<{ name: string; definition: string }>;
  indexes: Array<{ name: string; definition: string }>;
}

/** The shape of `<schema>.<table>`; empty lists when the table does not exist. */
export async function tableShape(db: Queryable, schema: string, table: string): Promise<TableShape> {
  const columns = await db.query<TableShape['columns'][number]>(
    `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS default,
            CASE WHEN is_identity = 'YES' THEN identity_generation END AS identity
       FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [schema, table],
  );
  const constraints = await db.query<{ name: string; definition: string }>(
    `SELECT c.conname AS name, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1 AND t.relname = $2 AND c.contype <> 'n' ORDER BY c.conname`,
    [schema, table],
  );
  const indexes = await db.query<{ name: string; definition: string }>(
    'SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
    [schema, table],
  );
  const unschema = (text: string) => text.split(`${schema}.`).join('<schema>.');
  return {
    columns: columns.rows,
    constraints: constraints.rows.map((c) => ({ name: c.name, definition: unschema(c.definition) })),
    indexes: indexes.rows.map((i) => ({ name: i.name, definition: unschema(i.definition) })),
  };
}
