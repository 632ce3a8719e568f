import { describe, expect, it } from 'vitest';
import { rendersAsOneGlyph } from '../src/components/Flag.js';

describe('flag support', () => {
  it('a pair of regional indicators drawn as one emoji is a flag; two boxes or letters are not', () => {
    expect(rendersAsOneGlyph(20, 20)).toBe(true); // emoji font: the pair is one glyph as wide as one letter
    expect(rendersAsOneGlyph(28, 16)).toBe(false); // no emoji font: two boxes
    expect(rendersAsOneGlyph(0, 0)).toBe(false); // nothing measured
  });
});
