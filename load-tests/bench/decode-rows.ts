import type { EncodedRows } from '@sightline/event-store';

const UNESCAPE: Record<string, string> = { t: '\t', n: '\n', r: '\r', '\\': '\\', "'": "'" };

/** A TabSeparated field as text: escapes undone; an array stays its literal ("['a','b']"). */
function tsvField(field: string): string {
  return field.replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c);
}

/**
 * Rows of an encoded insert back as objects (the bench's own bookkeeping, after the
 * timed run). TabSeparated fields come back as text: the bench reads timestamps,
 * drop reasons and counts, which it converts itself.
 */
export function decodeRows(rows: EncodedRows): Record<string, unknown>[] {
  const lines = Buffer.from(rows.payload)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '');
  if (rows.format === 'JSONEachRow') return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const columns = rows.columns!;
  if (rows.format === 'TabSeparated') return lines.map((line) => Object.fromEntries(line.split('\t').map((field, i) => [columns[i], tsvField(field)])));
  return lines.map((line) => {
    const values = JSON.parse(line) as unknown[];
    return Object.fromEntries(columns.map((column, i) => [column, values[i]]));
  });
}
