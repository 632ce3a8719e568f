import { randomBase62 } from '../keys/base62.js';
import { isWellFormedPrefixedToken, mintPrefixedToken, type MintedToken } from '../keys/key-token.js';

/**
 * Web session tokens: `sls_` + 43 base62 characters (32 random bytes) + a CRC32
 * checksum, built like API keys' `sl_` tokens but never accepted as one (the prefix
 * differs), so a cookie's secret cannot be replayed as a bearer key. Only the SHA-256
 * is stored.
 */
export const SESSION_TOKEN_PREFIX = 'sls_';

export const mintSessionToken = (): MintedToken => mintPrefixedToken(SESSION_TOKEN_PREFIX);

/** true when `token` has a session token's shape and checksum: worth a database lookup. */
export const isWellFormedSessionToken = (token: string): boolean => isWellFormedPrefixedToken(SESSION_TOKEN_PREFIX, token);

/** `ses_` + 20 random base62 characters: the session's public id (the principal's key_id). */
export const newSessionId = (): string => `ses_${randomBase62(20)}`;
