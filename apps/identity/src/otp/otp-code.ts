import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export const OTP_TTL_MINUTES = 10;
export const OTP_MAX_FAILED_ATTEMPTS = 5;
const CODE_SHAPE = /^[0-9]{6}$/;

/** Six digits, uniformly from the CSPRNG. */
export function generateCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

export function isCodeShaped(code: string): boolean {
  return CODE_SHAPE.test(code);
}

/**
 * HMAC-SHA256 keyed with the server secret over (address, code). A plain hash of a
 * six-digit code falls to an offline search of 10^6 candidates in milliseconds;
 * without the secret, a leaked table says nothing. The address is bound in, so a
 * code's hash is useless for any other address.
 */
export function hashCode(secretKey: string, email: string, code: string): string {
  return createHmac('sha256', secretKey).update(`${email}\n${code}`).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function hashesMatch(expectedHex: string, actualHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(actualHex, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
