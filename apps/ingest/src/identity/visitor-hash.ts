import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** One HMAC key object per salt: the key is imported once, not on every event. */
const keys = new WeakMap<Buffer, KeyObject>();

/**
 * Visitor id: HMAC-SHA256 keyed with the day's secret salt over site, IP and
 * User-Agent, truncated to 64 bits (UInt64 as decimal text). Without the salt the
 * id cannot be recomputed from an IP, and the salt is deleted after two days.
 */
export function visitorHash(salt: Buffer, siteId: number, ip: string, ua: string): string {
  let key = keys.get(salt);
  if (!key) keys.set(salt, (key = createSecretKey(salt)));
  const digest = createHmac('sha256', key).update(`${siteId}\0${ip}\0${ua}`).digest();
  const id = digest.readBigUInt64BE(0);
  return (id === 0n ? 1n : id).toString();
}

const DAY_MS = 86_400_000;
/** 'YYYY-MM-DD' by day number: events of a run share a day or two. */
const dayTexts = new Map<number, string>();

function dayText(dayNumber: number): string {
  let text = dayTexts.get(dayNumber);
  if (text === undefined) {
    if (dayTexts.size >= 64) dayTexts.clear();
    dayTexts.set(dayNumber, (text = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10)));
  }
  return text;
}

/** UTC day of an instant, 'YYYY-MM-DD'. */
export function utcDay(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  return Number.isFinite(ms) ? dayText(Math.floor(ms / DAY_MS)) : new Date(ms).toISOString().slice(0, 10);
}

export function previousUtcDay(day: string): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) - DAY_MS);
}
