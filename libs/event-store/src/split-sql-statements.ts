/**
 * Splits a migration file into statements at top-level `;` — one that is not
 * inside a '…' string, a "…" or `…` quoted identifier, a `--` / `# ` line comment
 * or a block comment. Statements that are empty or only comments are dropped.
 * Throws on an unterminated string, identifier or block comment: a file like that
 * is a typo and would otherwise swallow the statements after it.
 */
export function splitSqlStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false; // the current statement has something besides whitespace and comments
  let i = 0;

  const finish = (end: number) => {
    if (hasCode) statements.push(sql.slice(start, end).trim());
    start = end + 1;
    hasCode = false;
  };

  while (i < sql.length) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      i = skipLineComment(sql, i);
    } else if (ch === '#' && (next === ' ' || next === '!')) {
      // ClickHouse reads `# ` and `#!` as line comments (a bare `#` is not one).
      i = skipLineComment(sql, i);
    } else if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new Error(`Unterminated /* comment starting at offset ${i}`);
      i = end + 2;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      i = skipQuoted(sql, i, ch);
      hasCode = true;
    } else if (ch === ';') {
      finish(i);
      i += 1;
    } else {
      if (!/\s/.test(ch)) hasCode = true;
      i += 1;
    }
  }
  finish(sql.length);
  return statements;
}

function skipLineComment(sql: string, from: number): number {
  const end = sql.indexOf('\n', from);
  return end === -1 ? sql.length : end + 1;
}

/** Index just past the closing quote. Handles backslash escapes and doubled quotes. */
function skipQuoted(sql: string, from: number, quote: string): number {
  let i = from + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === '\\') {
      i += 2;
    } else if (ch === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  const kind = quote === "'" ? 'string literal' : 'quoted identifier';
  throw new Error(`Unterminated ${kind} starting at offset ${from}`);
}

/**
 * True when `sql` holds more than one statement. Unlexable text counts as one:
 * the engine then reports the real syntax error.
 */
export function isMultiStatement(sql: string): boolean {
  if (!sql.includes(';')) return false;
  try {
    return splitSqlStatements(sql).length > 1;
  } catch {
    return false;
  }
}
