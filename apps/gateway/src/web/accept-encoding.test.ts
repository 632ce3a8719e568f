import { describe, expect, it } from 'vitest';
import { pickEncoding } from './accept-encoding.js';

const both = { br: true, gzip: true };

describe('pickEncoding', () => {
  it('prefers br, then gzip, honouring q=0 and *', () => {
    expect(pickEncoding('gzip, deflate, br', both)).toBe('br');
    expect(pickEncoding('gzip;q=1.0, br;q=0.5', both)).toBe('br');
    expect(pickEncoding('br;q=0, gzip', both)).toBe('gzip');
    expect(pickEncoding('BR;Q=0, GZIP', both)).toBe('gzip');
    expect(pickEncoding('x-gzip', both)).toBe('gzip');
    expect(pickEncoding('*', both)).toBe('br');
    expect(pickEncoding('*;q=0', both)).toBeUndefined();
    expect(pickEncoding('identity', both)).toBeUndefined();
    expect(pickEncoding('', both)).toBeUndefined();
    expect(pickEncoding(undefined, both)).toBeUndefined();
    expect(pickEncoding('br;q=abc, gzip', both)).toBe('gzip');
  });

  it('offers only the siblings that exist', () => {
    expect(pickEncoding('br, gzip', { br: false, gzip: true })).toBe('gzip');
    expect(pickEncoding('br', { br: false, gzip: true })).toBeUndefined();
    expect(pickEncoding('br, gzip', { br: false, gzip: false })).toBeUndefined();
  });
});
