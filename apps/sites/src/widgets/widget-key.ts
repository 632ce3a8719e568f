import { createHash, createHmac } from 'node:crypto';
import { randomBase62 } from '@sightline/runtime';

/** `wk_` + 43 base64url characters (a SHA-256 MAC): the shape a lookup checks before any database work. */
export const WIDGET_KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43}$/;

/** 24 base62 characters (~143 bits): a new one per site and per rotation. */
export const newWidgetSalt = (): string => randomBase62(24);

/**
 * The site's widget key: HMAC-SHA256(SECRET_KEY, "widget:<site_id>:<salt>"). Derived
 * again on every read, so the key is stable until the salt changes, and a copy of the
 * database (salts and SHA-256s only) yields no key.
 */
export function deriveWidgetKey(secretKey: string, siteId: number, salt: string): string {
  return `wk_${createHmac('sha256', secretKey).update(`widget:${siteId}:${salt}`).digest('base64url')}`;
}

/** What the table keeps of a key, and what a lookup searches for. */
export function widgetKeySha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
