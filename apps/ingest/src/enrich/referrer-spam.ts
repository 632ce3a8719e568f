/**
 * Known referrer spammers (Matomo's referrer-spam-list, apps/ingest/data/referrer-spam.txt):
 * a listed domain matches itself and its subdomains. Loaded once at import.
 */
import { readFileSync } from 'node:fs';
import { hostAndParents, normalizeHost } from './hostnames.js';

const SPAMMERS: ReadonlySet<string> = new Set(
  readFileSync(new URL('../../data/referrer-spam.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((line) => line.trim().toLowerCase())
    .filter((line) => line !== '' && !line.startsWith('#')),
);

/** Number of listed domains (for tests and the data README). */
export const REFERRER_SPAM_DOMAINS = SPAMMERS.size;

export function isReferrerSpam(host: string): boolean {
  const normalized = normalizeHost(host);
  if (!normalized) return false;
  for (const candidate of hostAndParents(normalized)) if (SPAMMERS.has(candidate)) return true;
  return false;
}
