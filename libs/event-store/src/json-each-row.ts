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

export function parseJsonEachRow<R>(text: string): R[] {
  const body = text.trim();
  if (body === '') return [];
  // One JSON.parse over the whole result is much faster than one per line.
  return JSON.parse(`[${body.split('\n').filter((line) => line.trim() !== '').join(',')}]`) as R[];
}
