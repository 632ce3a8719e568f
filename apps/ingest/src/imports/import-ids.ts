import { createHash } from 'node:crypto';

/** First 8 bytes of SHA-256 as an unsigned 64-bit decimal (UInt64 columns; exceeds 2^53, so text). */
function hash64(...parts: Array<string | number>): string {
  return createHash('sha256').update(parts.join('\u0000')).digest().readBigUInt64BE(0).toString();
}

/**
 * An imported visitor's id: a stable hash of (site, the import's visitor id). Live
 * visitor ids are keyed with a daily salt, so imported visitors never meet live ones;
 * two imports of one site naming the same visitor do meet (one history).
 */
export const importVisitorId = (siteId: number, visitorKey: string): string => hash64('import-visitor', siteId, visitorKey);
