/**
 * ClickHouse cluster mode: the migrations are written for one server; with a
 * cluster name set they are rewritten so that every table exists on every node as a
 * Replicated local table (`<name>_local`) plus a Distributed table under the
 * original name, through which services read and write unchanged SQL.
 *
 * Rows are sharded by `site_id`: a site's events, and both sign rows of a session
 * version, land on the same shard, so collapsing and per-site queries stay local.
 * Only the statement shapes our migrations use are rewritten; anything else is
 * refused loudly instead of being run on one node by mistake.
 */
export interface ClusterDdlOptions {
  cluster: string;
  database: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CREATE =
  /^\s*CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(\([\s\S]*\))\s*ENGINE\s*=\s*([A-Za-z]*MergeTree)\s*(\(([^)]*)\))?([\s\S]*)$/i;
const VIEW =
  /^\s*CREATE\s+MATERIALIZED\s+VIEW\s+(IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+TO\s+([A-Za-z_][A-Za-z0-9_]*)\s+AS\s+([\s\S]*\bFROM\s+)([A-Za-z_][A-Za-z0-9_]*)\b([\s\S]*)$/i;
const INSERT_SELECT = /^\s*INSERT\s+INTO\s+[A-Za-z_][A-Za-z0-9_]*\s+SELECT\b/i;
const ALTER = /^\s*ALTER\s+TABLE\s+([A-Za-z_][A-Za-z0-9_]*)\s+([\s\S]*)$/i;

export const localTableName = (table: string): string => `${table}_local`;

/** The sharding key of a Distributed table: a site's rows stay together. */
const SHARDING_KEY = 'site_id';

export function toClusterDdl(statement: string, options: ClusterDdlOptions): string[] {
  if (!IDENT.test(options.cluster) || !IDENT.test(options.database)) throw new Error('cluster and database must be plain identifiers');
  const { cluster, database } = options;
  statement = withoutLineComments(statement);
  const create = CREATE.exec(statement);
  if (create) {
    const [, , table, columns, engine, , engineArgs, rest] = create as unknown as [
      string,
      string | undefined,
      string,
      string,
      string,
      string | undefined,
      string | undefined,
      string,
    ];
    const local = localTableName(table);
    const args = [`'/clickhouse/tables/{shard}/${database}/${local}'`, `'{replica}'`, ...(engineArgs?.trim() ? [engineArgs.trim()] : [])].join(', ');
    const replicated =
      `CREATE TABLE IF NOT EXISTS ${database}.${local} ON CLUSTER ${cluster} ${columns} ENGINE = Replicated${engine}(${args}) ${rest.trim()}`.trimEnd();
    if (!/\bsite_id\b/.test(columns)) return [replicated];
    const distributed = `CREATE TABLE IF NOT EXISTS ${database}.${table} ON CLUSTER ${cluster} AS ${database}.${local} ENGINE = Distributed(${cluster}, ${database}, ${local}, sipHash64(${SHARDING_KEY}))`;
    return [replicated, distributed];
  }
  const view = VIEW.exec(statement);
  if (view) {
    // a materialized view fires on inserts into the node's local source table and writes the local target
    const [, , name, target, select, source, rest] = view as unknown as [string, string | undefined, string, string, string, string, string];
    return [
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${database}.${name} ON CLUSTER ${cluster} TO ${database}.${localTableName(target)} AS ${select}${database}.${localTableName(source)}${rest}`,
    ];
  }
  // a backfill (INSERT … SELECT) reads and writes the Distributed tables from one node
  if (INSERT_SELECT.test(statement)) return [statement];
  const alter = ALTER.exec(statement);
  if (alter) {
    const [, table, action] = alter as unknown as [string, string, string];
    const onLocal = `ALTER TABLE ${database}.${localTableName(table)} ON CLUSTER ${cluster} ${action}`;
    // Column changes must reach the Distributed table too; data mutations only the local one.
    if (/^\s*(ADD|DROP|MODIFY|RENAME)\s+COLUMN\b/i.test(action)) return [onLocal, `ALTER TABLE ${database}.${table} ON CLUSTER ${cluster} ${action}`];
    return [onLocal];
  }
  throw new Error(
    `cluster mode cannot rewrite this migration statement; write it as CREATE TABLE … ENGINE = *MergeTree or ALTER TABLE: ${statement.slice(0, 80)}`,
  );
}

function withoutLineComments(sql: string): string {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .trim();
}
