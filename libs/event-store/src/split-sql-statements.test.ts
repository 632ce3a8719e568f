import { describe, expect, it } from 'vitest';
import { isMultiStatement, splitSqlStatements } from './split-sql-statements.js';

describe('splitSqlStatements', () => {
  it('splits at top-level semicolons and drops empty or comment-only pieces', () => {
    const sql = `
-- header comment; with a semicolon
CREATE TABLE a (x UInt8) ENGINE = MergeTree ORDER BY x;

/* block; comment */
CREATE TABLE b (y String DEFAULT 'semi;colon') ENGINE = MergeTree ORDER BY y;
-- trailing comment;
`;
    const parts = splitSqlStatements(sql);
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatch(/CREATE TABLE a .*ORDER BY x$/s);
    expect(parts[1]).toMatch(/^\/\* block; comment \*\/\nCREATE TABLE b \(y String DEFAULT 'semi;colon'\) ENGINE = MergeTree ORDER BY y$/);
  });

  it('respects escapes and doubled quotes in strings, and quoted identifiers', () => {
    const parts = splitSqlStatements("SELECT 'it\\'s; fine', 'a''b;c' FROM `weird;name`;\nSELECT \"col;umn\" FROM t;\nSELECT '\\\\';SELECT 2");
    expect(parts).toEqual(["SELECT 'it\\'s; fine', 'a''b;c' FROM `weird;name`", 'SELECT "col;umn" FROM t', "SELECT '\\\\'", 'SELECT 2']);
  });

  it('treats "# " as a comment but not a bare #', () => {
    expect(splitSqlStatements('# note; here\nSELECT 1;')).toEqual(['# note; here\nSELECT 1']);
  });

  it('returns nothing for an empty file and throws on unterminated literals', () => {
    expect(splitSqlStatements('  \n-- only a comment\n')).toEqual([]);
    expect(() => splitSqlStatements("SELECT 'oops;\nSELECT 2;")).toThrow(/Unterminated string literal/);
    expect(() => splitSqlStatements('SELECT 1 /* never closed')).toThrow(/Unterminated \/\* comment/);
  });
});

describe('isMultiStatement', () => {
  it('counts statements, tolerating a trailing semicolon and unlexable text', () => {
    expect(isMultiStatement('SELECT 1')).toBe(false);
    expect(isMultiStatement('SELECT 1;\n-- done\n')).toBe(false);
    expect(isMultiStatement("SELECT ';'")).toBe(false);
    expect(isMultiStatement('SELECT 1; SELECT 2')).toBe(true);
    expect(isMultiStatement("SELECT 'open; SELECT 2")).toBe(false);
  });
});
