/**
 * JSONEachRow in both directions. Rows are encoded once into a Buffer so chDB's
 * raw insert hands them to the engine's parser without another copy.
 */

// JSON has no bigint; a quoted integer is accepted by ClickHouse's JSON input for integer columns.
function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

export function stringifyRow(row: unknown): string {
  try {
    // Fast path: a replacer makes JSON.stringify markedly slower, and bigints are rare.
    return JSON.stringify(row);
  } catch (error) {
    if (error instanceof TypeError && /BigInt/i.test(error.message)) return JSON.stringify(row, bigintSafe);
    throw error;
  }
}

export function encodeJsonEachRow(rows: readonly Record<string, unknown>[]): Buffer {
  return Buffer.from(rows.map(stringifyRow).join('\n'), 'utf8');
}

/**
 * JSONCompactEachRow: each row a JSON array of its values in `columns` order. Beside
 * JSONEachRow it leaves out every key of every row, so there is less text to write
 * and for the engine less to parse and match to columns.
 * Returns undefined when the rows do not all have exactly the first row's keys
 * (the caller then sends JSONEachRow): a key missing from the column list would be
 * dropped silently.
 */
export function encodeJsonCompactEachRow(rows: readonly Record<string, unknown>[]): { columns: string[]; payload: Buffer } | undefined {
  const columns = Object.keys(rows[0]!);
  const width = columns.length;
  const lines = new Array<string>(rows.length);
  const values = new Array<unknown>(width);
  for (let r = 0; r < rows.length; r += 1) {
    const row = rows[r]!;
    let keys = 0;
    for (const _key in row) keys += 1;
    if (keys !== width) return undefined;
    for (let i = 0; i < width; i += 1) {
      const column = columns[i]!;
      if (!(column in row)) return undefined;
      values[i] = row[column];
    }
    lines[r] = stringifyRow(values);
  }
  return { columns, payload: Buffer.from(lines.join('\n'), 'utf8') };
}

/**
 * Rows already encoded for an insert: the text of `payload` in `format`, with the
 * column list when the format is positional. Lets the encoding happen on another
 * thread than the insert (ingest's pipeline workers encode, the thread that owns
 * the embedded engine inserts).
 */
export interface EncodedRows {
  /** TabSeparated: one line per row, fields escaped as ClickHouse's TabSeparated input reads them */
  format: 'JSONEachRow' | 'JSONCompactEachRow' | 'TabSeparated';
  /** JSONCompactEachRow, TabSeparated: the columns of each row's values, in order */
  columns?: string[];
  /** newline-separated rows, UTF-8 */
  payload: Uint8Array;
  rows: number;
  /**
   * `insert_deduplication_token`: the same token inserted again (a retry after a lost
   * answer) is skipped by tables that keep a deduplication window
   */
  dedupToken?: string;
}

/** Positional rows when every row has the first row's keys, else JSONEachRow. */
export function encodeRows(rows: readonly Record<string, unknown>[]): EncodedRows {
  const compact = rows.length > 0 ? encodeJsonCompactEachRow(rows) : undefined;
  if (compact) return { format: 'JSONCompactEachRow', columns: compact.columns, payload: compact.payload, rows: rows.length };
  return { format: 'JSONEachRow', payload: encodeJsonEachRow(rows), rows: rows.length };
}

export function parseJsonEachRow<R>(text: string): R[] {
  const body = text.trim();
  if (body === '') return [];
  // One JSON.parse over the whole result is much faster than one per line.
  return JSON.parse(
    `[${body
      .split('\n')
      .filter((line) => line.trim() !== '')
      .join(',')}]`,
  ) as R[];
}
