import { describe, expect, it } from 'vitest';
import { normalizeParams } from './query-params.js';

describe('normalizeParams', () => {
  it('turns Dates into Unix timestamp text, also inside arrays', () => {
    const at = new Date('2026-11-22T10:00:00.000Z');
    const withMs = new Date('2026-11-22T10:00:00.045Z');
    expect(normalizeParams({ at, withMs, list: [at] })).toEqual({
      at: String(at.getTime() / 1000),
      withMs: `${Math.floor(withMs.getTime() / 1000)}.045`,
      list: [String(at.getTime() / 1000)],
    });
  });

  it('binds top-level booleans as 1/0 and leaves other values alone', () => {
    expect(normalizeParams({ t: true, f: false, s: "a'b", n: 1, b: 2n, z: null })).toEqual({ t: 1, f: 0, s: "a'b", n: 1, b: 2n, z: null });
    expect(normalizeParams(undefined)).toEqual({});
  });

  it('rejects an invalid Date', () => {
    expect(() => normalizeParams({ d: new Date('nope') })).toThrow(/invalid Date/);
  });
});
