import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { bytesToBase62, encodeBase62, randomBase62 } from './base62.js';

/**
 * API key tokens: `sl_` + 43 base62 characters (32 random bytes) + a 6-character
 * base62 CRC32 of those 43. The fixed prefix makes a leaked token recognisable to
 * secret scanners; the checksum rejects a mistyped or made-up token before any
 * database work. Only the SHA-256 of the token is stored.
 */
export const TOKEN_PREFIX = 'sl_';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
export const TOKEN_LENGTH = TOKEN_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH; // 52
/** how much of a token the key's public `prefix` field shows */
export const DISPLAY_PREFIX_LENGTH = 12;

const checksumOf = (body: string): string => encodeBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);

export interface MintedToken {
  token: string;
  /** what the database keeps */
  secretHash: string;
  /** first characters, shown in listings */
  prefix: string;
}

/** `prefix` + 43 base62 characters (32 random bytes) + their 6-character CRC32: API keys (`sl_`) and web sessions (`sls_`). */
export function mintPrefixedToken(tokenPrefix: string): MintedToken {
  const body = bytesToBase62(randomBytes(32));
  const token = `${tokenPrefix}${body}${checksumOf(body)}`;
  return { token, secretHash: hashToken(token), prefix: token.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** true when `token` is `tokenPrefix` + body + matching checksum: worth a database lookup. */
export function isWellFormedPrefixedToken(tokenPrefix: string, token: string): boolean {
  if (token.length !== tokenPrefix.length + BODY_LENGTH + CHECKSUM_LENGTH || !token.startsWith(tokenPrefix)) return false;
  const rest = token.slice(tokenPrefix.length);
  if (!/^[0-9A-Za-z]+$/.test(rest)) return false;
  return rest.slice(BODY_LENGTH) === checksumOf(rest.slice(0, BODY_LENGTH));
}

export function mintToken(): MintedToken {
  return mintPrefixedToken(TOKEN_PREFIX);
}

/** true when `token` has the shape and a matching checksum: worth a database lookup. */
export function isWellFormedToken(token: string): boolean {
  return isWellFormedPrefixedToken(TOKEN_PREFIX, token);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** `key_` + 20 random base62 characters (~119 bits): public, but not guessable. */
export function newKeyId(): string {
  return `key_${randomBase62(20)}`;
}

const KEY_ID_SHAPE = /^key_[0-9A-Za-z]{20}$/;

/** true when `keyId` could have been issued; anything else (a NUL byte PostgreSQL refuses, a typo) names no key. */
export function isKeyId(keyId: string): boolean {
  return KEY_ID_SHAPE.test(keyId);
}
