import { describe, expect, it } from 'vitest';
import { emptySessionAttributes, SESSION_ATTRIBUTE_COLUMNS } from './attributes.js';
import { EVENT_ROW_COLUMNS, SESSION_ROW_COLUMNS } from './columns.js';
import { EVENT_ROW_TSV_COLUMNS, sessionAttributesTsv, SESSION_ROW_TSV_COLUMNS } from './rows-tsv.generated.js';
import { tsvText, tsvTexts } from './tab-separated-text.js';

describe('TabSeparated text', () => {
  it('escapes exactly backslash, tab, line feed and carriage return in a String field', () => {
    expect(tsvText('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    // quotes, commas, brackets, NUL-looking text and UTF-8 go as they are
    for (const plain of ["it's", '"q", x', '[1,2]', 'ünï 😀', '', 'N']) expect(tsvText(plain)).toBe(plain);
    // '\N' would read as NULL unescaped: its backslash is escaped like any other
    expect(tsvText('\\N')).toBe('\\\\N');
  });

  it('writes an Array(String) as a literal of quoted strings, quotes and backslashes escaped', () => {
    expect(tsvTexts([])).toBe('[]');
    expect(tsvTexts(['a'])).toBe("['a']");
    expect(tsvTexts(["it's", 'x,y', 'tab\there', '\\', ''])).toBe("['it\\'s','x,y','tab\\there','\\\\','']");
  });

  it('encodes the visit attributes tab-separated, in catalogue order', () => {
    const attributes = { ...emptySessionAttributes(), referrer: 'r\tx', city: 2950159, screen: 'Laptop' };
    const fields = sessionAttributesTsv(attributes).split('\t');
    expect(fields).toHaveLength(SESSION_ATTRIBUTE_COLUMNS.length);
    expect(fields[SESSION_ATTRIBUTE_COLUMNS.indexOf('referrer')]).toBe('r\\tx');
    expect(fields[SESSION_ATTRIBUTE_COLUMNS.indexOf('city')]).toBe('2950159');
    expect(fields.at(-1)).toBe('Laptop');
  });

  it('names the columns of each line: the row columns, then the visit attributes', () => {
    expect(EVENT_ROW_TSV_COLUMNS).toEqual([...EVENT_ROW_COLUMNS.map((c) => c.name), ...SESSION_ATTRIBUTE_COLUMNS]);
    expect(SESSION_ROW_TSV_COLUMNS).toEqual([...SESSION_ROW_COLUMNS.map((c) => c.name), ...SESSION_ATTRIBUTE_COLUMNS]);
  });
});
