import type { Enricher } from '../ports.js';

function refererHost(referrer: string): string {
  try {
    return new URL(referrer).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** Step 3b: whether the referrer's host is on the spam list (no referrer or an unparsable one: no). */
export function isSpamReferrer(referrer: string | undefined, enricher: Enricher): boolean {
  if (!referrer) return false;
  const host = refererHost(referrer);
  return host !== '' && enricher.isReferrerSpam(host);
}
