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
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

const checksumOf = (body: string): string => encodeBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);

export interface MintedToken {
  token: string;
  /** what the database keeps */
  secretHash: string;
  /** first characters, shown in listings */
  prefix: string;
}

export function mintToken(): MintedToken {
  const body = bytesToBase62(randomBytes(32));
  const token = `${TOKEN_PREFIX}${body}${checksumOf(body)}`;
  return { token, secretHash: hashToken(token), prefix: token.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** true when `token` has the shape and a matching checksum: worth a database lookup. */
export function isWellFormedToken(token: string): boolean {
  if (token.length !== TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return false;
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY_LENGTH);
  return token.slice(-CHECKSUM_LENGTH) === checksumOf(body);
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
