import { describe, expect, it } from 'vitest';
import { IMPORT_MAX_LINE_BYTES } from '@sightline/events-schema';
import { LineSplitter, type SplitLine } from './line-splitter.js';

function split(chunks: Array<string | Buffer>): SplitLine[] {
  const splitter = new LineSplitter();
  const out: SplitLine[] = [];
  for (const chunk of chunks) out.push(...splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
  out.push(...splitter.end());
  return out;
}

describe('LineSplitter', () => {
  it('numbers lines across chunk boundaries, CRLF or LF, with or without a final newline', () => {
    expect(split(['{"a":1}\r\n{"b"', ':2}\n', '\n{"c":3}'])).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
      // line 3 is blank: numbered, not yielded
      { line: 4, text: '{"c":3}' },
    ]);
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const bytes = Buffer.from('{"p":"Zürich"}\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside "ü"
    expect(split([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual([{ line: 1, text: '{"p":"Zürich"}' }]);
  });

  it('reports an overlong line once, skips its bytes, and goes on with the next', () => {
    const long = 'x'.repeat(IMPORT_MAX_LINE_BYTES + 10);
    const lines = split([long.slice(0, 40_000), long.slice(40_000), '\n{"ok":1}\n']);
    expect(lines).toEqual([
      { line: 1, tooLong: true },
      { line: 2, text: '{"ok":1}' },
    ]);
  });
});
