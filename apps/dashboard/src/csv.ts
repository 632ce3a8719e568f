/**
 * CSV text (RFC 4180: CRLF line ends, fields quoted when they hold a comma, quote or
 * line break). A cell that a spreadsheet would run as a formula (starts with = + - @,
 * tab or CR) gets a leading apostrophe: the values are attacker-controlled (paths,
 * referrers, event names). Pure: no DOM.
 */
export type Cell = string | number | null | undefined;

export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function buildCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** A file name made of safe characters only. */
export function csvFileName(name: string): string {
  return `${
    name
      .replace(/[^a-z0-9_-]+/gi, '_')
      .replace(/_{2,}/g, '_')
      .replace(/^_+|_+$/g, '') || 'data'
  }.csv`;
}
