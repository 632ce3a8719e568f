import { describe, expect, it } from 'vitest';
import { encodeJsonCompactEachRow, encodeJsonEachRow } from './json-each-row.js';

describe('encodeJsonCompactEachRow', () => {
  it('writes each row as an array of its values in the first row’s key order, whatever order its keys came in', () => {
    const encoded = encodeJsonCompactEachRow([
      { a: 1, b: 'x, "y"', c: ['p'], d: null },
      { d: 2n, c: [], b: 'z\nw', a: 2 },
    ]);
    expect(encoded?.columns).toEqual(['a', 'b', 'c', 'd']);
    expect(encoded?.payload.toString('utf8')).toBe('[1,"x, \\"y\\"",["p"],null]\n[2,"z\\nw",[],"2"]');
  });

  it('declines rows whose keys differ from the first row’s, so no value is dropped silently', () => {
    expect(encodeJsonCompactEachRow([{ a: 1, b: 2 }, { a: 1 }])).toBeUndefined();
    expect(encodeJsonCompactEachRow([{ a: 1 }, { a: 1, b: 2 }])).toBeUndefined();
    expect(
      encodeJsonCompactEachRow([
        { a: 1, b: 2 },
        { a: 1, c: 2 },
      ]),
    ).toBeUndefined();
  });

  it('says less than JSONEachRow for the same rows (no key names per row)', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ site_id: 1, timestamp: '2026-11-26 12:00:00', pathname: `/p/${i}`, referrer_source: 'Google' }));
    expect(encodeJsonCompactEachRow(rows)!.payload.length).toBeLessThan(encodeJsonEachRow(rows).length / 2);
  });
});
