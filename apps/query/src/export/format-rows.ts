import { EXPORT_COLUMNS, type ExportValue } from './export-columns.js';

/**
 * Text encodings of export rows. NDJSON is exactly the import format's line. CSV has
 * the same columns under a header line (RFC 4180: a field holding a comma, quote, CR
 * or LF is quoted, quotes doubled); `props` is the JSON object as text, and null ("not
 * recorded") is an empty field.
 */
export function ndjsonLine(values: readonly ExportValue[]): string {
  const object: Record<string, ExportValue> = {};
  EXPORT_COLUMNS.forEach((column, i) => (object[column] = values[i] ?? null));
  return `${JSON.stringify(object)}\n`;
}

export const CSV_HEADER = `${EXPORT_COLUMNS.join(',')}\r\n`;

function csvField(value: ExportValue): string {
  if (value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly ExportValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
