import { BASE62_ALPHABET as ALPHABET } from '@sightline/runtime';

export { randomBase62 } from '@sightline/runtime';
const BASE = BigInt(ALPHABET.length);

/** `value` in base62, left-padded with '0' to `width` characters (fixed-width tokens). */
export function encodeBase62(value: bigint, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0n) {
    out = ALPHABET[Number(rest % BASE)]! + out;
    rest /= BASE;
  }
  if (out.length > width) throw new RangeError(`value needs ${out.length} base62 characters, more than ${width}`);
  return out.padStart(width, '0');
}

/** `bytes` as one big-endian number in base62, fixed width for its length. */
export function bytesToBase62(bytes: Uint8Array): string {
  const width = Math.ceil((bytes.length * 8) / Math.log2(62));
  return encodeBase62(BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`), width);
}
