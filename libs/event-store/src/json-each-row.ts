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

export function parseJsonEachRow<R>(text: string): R[] {
  const body = text.trim();
  if (body === '') return [];
  // One JSON.parse over the whole result is much faster than one per line.
  return JSON.parse(`[${body.split('\n').filter((line) => line.trim() !== '').join(',')}]`) as R[];
}
