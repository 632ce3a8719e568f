import { createHmac } from 'node:crypto';

/**
 * Visitor id: HMAC-SHA256 keyed with the day's secret salt over site, IP and
 * User-Agent, truncated to 64 bits (UInt64 as decimal text). Without the salt the
 * id cannot be recomputed from an IP, and the salt is deleted after two days.
 */
export function visitorHash(salt: Buffer, siteId: number, ip: string, ua: string): string {
  const digest = createHmac('sha256', salt).update(`${siteId}\0${ip}\0${ua}`).digest();
  const id = digest.readBigUInt64BE(0);
  return (id === 0n ? 1n : id).toString();
}

/** UTC day of an instant, 'YYYY-MM-DD'. */
export function utcDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

export function previousUtcDay(day: string): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) - 86_400_000);
}
