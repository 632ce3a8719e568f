import { describe, expect, it } from 'vitest';
import { buildCsv, csvCell, csvFileName } from '../src/csv.js';

describe('CSV', () => {
  it('quotes what needs quoting, CRLF line ends', () => {
    expect(
      buildCsv(
        ['page', 'visitors'],
        [
          ['/a,b', 3],
          ['say "hi"', 0],
          ['line\nbreak', null],
          ['/plain', 1.5],
        ],
      ),
    ).toBe('page,visitors\r\n"/a,b",3\r\n"say ""hi""",0\r\n"line\nbreak",\r\n/plain,1.5\r\n');
  });

  it('defuses spreadsheet formulas in text cells, not in numbers', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-cmd')).toBe("'-cmd");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('names files with safe characters only', () => {
    expect(csvFileName('sources_channels')).toBe('sources_channels.csv');
    expect(csvFileName('goals_props_../../etc/passwd')).toBe('goals_props_etc_passwd.csv');
    expect(csvFileName('<script>')).toBe('script.csv');
    expect(csvFileName('///')).toBe('data.csv');
  });
});
