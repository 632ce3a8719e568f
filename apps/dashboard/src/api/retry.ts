/**
 * When a read answered 429 (rate_limited) or 503 is tried once more, and how the
 * realtime refresh slows down while the server is struggling. Pure: the caller
 * supplies the clock and the randomness.
 */

/** Longest Retry-After the page waits out before its one retry; a longer one fails at once. */
export const MAX_RETRY_WAIT_MS = 10_000;
/** The wait when a 429/503 names none. */
export const DEFAULT_RETRY_WAIT_MS = 1_000;

const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Milliseconds to wait before retrying, or undefined for no retry: only 429 and
 * 503, only when Retry-After (seconds, or an HTTP date) is at most 10 s. `jitter`
 * in [0, 1) adds up to a fifth on top, so a crowd of open share pages that were
 * refused together does not come back together.
 */
export function retryDelayMs(status: number, retryAfter: string | null, nowMs: number, jitter: number): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  let wait = DEFAULT_RETRY_WAIT_MS;
  const text = retryAfter?.trim();
  if (text) {
    if (/^\d+$/.test(text)) wait = Number(text) * 1000;
    else {
      // an HTTP date (IMF-fixdate); anything else is unreadable: do not guess, show the error
      const at = HTTP_DATE.test(text) ? Date.parse(text) : NaN;
      if (Number.isNaN(at)) return undefined;
      wait = Math.max(0, at - nowMs);
    }
  }
  if (wait > MAX_RETRY_WAIT_MS) return undefined;
  return Math.round(wait * (1 + Math.min(Math.max(jitter, 0), 1) * 0.2));
}

/** The statuses that say "busy, later" (worth backing off from), not "wrong request". */
export function isTransient(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

/** Realtime refresh period after `failures` refreshes in a row that met a transient failure: 30 s doubling to 4 min. */
export function pollDelayMs(baseMs: number, failures: number): number {
  return baseMs * 2 ** Math.min(Math.max(failures, 0), 3);
}
