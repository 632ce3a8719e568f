import { describe, expect, it } from 'vitest';
import { bytesToBase62, encodeBase62, randomBase62 } from './base62.js';
import { DISPLAY_PREFIX_LENGTH, TOKEN_LENGTH, hashToken, isWellFormedToken, mintToken, newKeyId } from './key-token.js';

describe('API key tokens', () => {
  it('are sl_ + 43 base62 characters + a 6-character checksum, stored as SHA-256', () => {
    const minted = mintToken();
    expect(minted.token).toMatch(/^sl_[0-9A-Za-z]{49}$/);
    expect(minted.token).toHaveLength(TOKEN_LENGTH);
    expect(minted.prefix).toBe(minted.token.slice(0, DISPLAY_PREFIX_LENGTH));
    expect(minted.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(minted.secretHash).toBe(hashToken(minted.token));
    expect(isWellFormedToken(minted.token)).toBe(true);
  });

  it('are unique', () => {
    const tokens = new Set(Array.from({ length: 2_000 }, () => mintToken().token));
    expect(tokens.size).toBe(2_000);
  });

  it('reject any single changed character through the checksum', () => {
    const { token } = mintToken();
    for (let i = 3; i < token.length; i++) {
      const swapped = token.slice(0, i) + (token[i] === 'x' ? 'y' : 'x') + token.slice(i + 1);
      expect(isWellFormedToken(swapped), `position ${i}`).toBe(false);
    }
  });

  it('reject the wrong shape before any checksum work', () => {
    const { token } = mintToken();
    for (const bad of [
      '',
      'sl_',
      token.slice(0, -1),
      `${token}a`,
      `SL_${token.slice(3)}`,
      `sk_${token.slice(3)}`,
      token.replace(/^sl_./, 'sl_-'),
      ` ${token.slice(1)}`,
    ]) {
      expect(isWellFormedToken(bad), bad).toBe(false);
    }
  });
});

describe('base62', () => {
  it('encodes fixed-width, zero-padded', () => {
    expect(encodeBase62(0n, 3)).toBe('000');
    expect(encodeBase62(61n, 2)).toBe('0z');
    expect(encodeBase62(62n, 2)).toBe('10');
    expect(() => encodeBase62(62n ** 3n, 3)).toThrow(RangeError);
    expect(bytesToBase62(new Uint8Array(32).fill(255))).toHaveLength(43);
    expect(bytesToBase62(new Uint8Array(32))).toBe('0'.repeat(43));
  });

  it('draws random characters from the whole alphabet', () => {
    const seen = new Set(randomBase62(5_000));
    expect(seen.size).toBe(62);
    expect(newKeyId()).toMatch(/^key_[0-9A-Za-z]{20}$/);
  });
});
