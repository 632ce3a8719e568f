import { randomBytes } from 'node:crypto';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random base62 characters (unbiased: bytes ≥ 248 are rejected), ~5.95 bits each. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62_ALPHABET[byte % 62];
    }
  }
  return out;
}
