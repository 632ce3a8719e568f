import { describe, expect, it } from 'vitest';
import { encodeRows } from '@sightline/event-store';
import { tsvText } from '@sightline/events-schema';
import { decodeRows } from './decode-rows.js';

// The ingestion bench counts and checks rows the pipeline inserted encoded: decoding
// must give back exactly what was encoded, in both of the encoder's formats.
describe('decodeRows', () => {
  const awkward = ['plain', 'with "quotes", commas', 'line\nbreak and \t tab', 'ünïcödé ✓', ''];

  it('reads positional rows (JSONCompactEachRow, every row with the same keys) back as objects', () => {
    const rows = awkward.map((text, i) => ({ site_id: i, pathname: text, props: [text, 'x'], ratio: i / 3 }));
    const encoded = encodeRows(rows);
    expect(encoded.format).toBe('JSONCompactEachRow');
    expect(decodeRows(encoded)).toEqual(rows);
  });

  it('reads keyed rows (JSONEachRow, rows of mixed shapes) back as objects', () => {
    const rows = [
      { site_id: 1, pathname: awkward[1] },
      { site_id: 2, referrer: awkward[2] },
    ];
    const encoded = encodeRows(rows);
    expect(encoded.format).toBe('JSONEachRow');
    expect(decodeRows(encoded)).toEqual(rows);
  });

  it('reads TabSeparated rows back as text, escapes undone', () => {
    const payload = Buffer.from(awkward.map((text, i) => `${i}\t${tsvText(text)}\t${tsvText(`back\\slash ${text}`)}\n`).join(''));
    const decoded = decodeRows({ format: 'TabSeparated', columns: ['site_id', 'pathname', 'referrer'], payload, rows: awkward.length });
    expect(decoded).toEqual(awkward.map((text, i) => ({ site_id: String(i), pathname: text, referrer: `back\\slash ${text}` })));
  });

  it('reads no rows from an empty insert', () => {
    expect(decodeRows(encodeRows([]))).toEqual([]);
  });
});
