import type { EncodedRows } from '@sightline/event-store';

/** Rows of an encoded insert back as objects (the bench's own bookkeeping, after the timed run). */
export function decodeRows(rows: EncodedRows): Record<string, unknown>[] {
  const lines = Buffer.from(rows.payload).toString('utf8').split('\n').filter((line) => line !== '');
  if (rows.format === 'JSONEachRow') return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const columns = rows.columns!;
  return lines.map((line) => {
    const values = JSON.parse(line) as unknown[];
    return Object.fromEntries(columns.map((column, i) => [column, values[i]]));
  });
}
