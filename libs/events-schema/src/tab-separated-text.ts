/**
 * Values as ClickHouse's TabSeparated input reads them. A row is one line of
 * tab-separated fields, so a string escapes the backslash, tab, line feed and
 * carriage return; an Array(String) is a literal of single-quoted strings, which
 * escapes the quote and backslash too. Nothing else needs escaping (UTF-8 goes as
 * it is), and a string without any of these characters is returned unchanged,
 * which is nearly every value ingest writes.
 */

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const TO_ESCAPE = /[\\\t\n\r]/g;
const NEEDS_QUOTED_ESCAPE = /[\\'\t\n\r]/;
const TO_QUOTED_ESCAPE = /[\\'\t\n\r]/g;

function escapeOne(c: string): string {
  switch (c) {
    case '\t':
      return '\\t';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    default:
      // backslash, quote
      return `\\${c}`;
  }
}

/** A String field. */
export function tsvText(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(TO_ESCAPE, escapeOne) : value;
}

/** An Array(String) field: ['a','b']. */
export function tsvTexts(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i]!;
    out += `${i === 0 ? '' : ','}'${NEEDS_QUOTED_ESCAPE.test(value) ? value.replace(TO_QUOTED_ESCAPE, escapeOne) : value}'`;
  }
  return `${out}]`;
}
