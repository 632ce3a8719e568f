/**
 * Identifiers (database and table names) cannot be bound as parameters in every
 * statement we need, so they are checked against a strict whitelist instead and
 * only ever reach SQL after that check.
 */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const QUALIFIED_TABLE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

export function assertDatabaseName(name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new Error(`Invalid database name ${JSON.stringify(name)}: expected [A-Za-z_][A-Za-z0-9_]*`);
  }
  return name;
}

/** `table` or `database.table`. */
export function assertTableName(name: string): string {
  if (!QUALIFIED_TABLE.test(name)) {
    throw new Error(`Invalid table name ${JSON.stringify(name)}: expected [database.]table of [A-Za-z0-9_]`);
  }
  return name;
}

/** A column named in an insert's column list. */
export function assertColumnName(name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new Error(`Invalid column name ${JSON.stringify(name)}: expected [A-Za-z_][A-Za-z0-9_]*`);
  }
  return name;
}
