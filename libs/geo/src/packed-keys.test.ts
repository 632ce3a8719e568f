import { describe, expect, it } from 'vitest';
import { PackedKeys } from './packed-keys.js';

describe('PackedKeys', () => {
  const keys = new PackedKeys([
    ['DE\tBerlin\tBerlin', 2950159],
    ['CH\tGeneva\tGenève', 2660646],
    ['ZZ\t\t', -1],
    ['DE\tBavaria\tMünchen', 2867714],
    ['DE\tBavaria\tMünchen', 7],
    ['😀\tz', 3],
    ['\uffff', 4],
    ['A', 5],
  ]);

  it('finds every key it holds, whatever its characters, and nothing else', () => {
    expect(keys.size).toBe(8);
    expect(keys.get('DE\tBerlin\tBerlin')).toBe(2950159);
    expect(keys.get('CH\tGeneva\tGenève')).toBe(2660646);
    expect(keys.get('ZZ\t\t')).toBe(-1);
    expect(keys.get('😀\tz')).toBe(3);
    expect(keys.get('\uffff')).toBe(4);
    expect(keys.get('A')).toBe(5);
    for (const absent of ['', 'DE', 'DE\tBerlin\tBerli', 'DE\tBerlin\tBerlinx', 'CH\tGeneva\tGeneve', 'a', '😀']) expect(keys.get(absent)).toBeUndefined();
  });

  it('keeps the values of a repeated key in the order given', () => {
    expect(keys.get('DE\tBavaria\tMünchen')).toBe(2867714);
    expect(keys.getAll('DE\tBavaria\tMünchen')).toEqual([2867714, 7]);
    expect(keys.getAll('DE\tBavaria')).toEqual([]);
  });

  it('agrees with a Map on many random keys', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const alphabet = ['a', 'b', 'é', '\t', 'ß', '中', '😀', '\ud7ff', '\ue000'];
    const word = () => Array.from({ length: Math.floor(random() * 6) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const map = new Map<string, number>();
    for (let i = 0; i < 3_000; i += 1) map.set(word(), i);
    const packed = new PackedKeys([...map]);
    for (const [key, value] of map) expect(packed.get(key)).toBe(value);
    for (let i = 0; i < 3_000; i += 1) {
      const probe = word();
      expect(packed.get(probe)).toBe(map.get(probe));
    }
  });
});
