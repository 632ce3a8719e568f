/**
 * One request to the data endpoint. A plain GET without credentials or custom
 * headers (a CORS "simple" request: no preflight). The outcome says what the
 * refresh loop should do next; nothing here ever throws.
 */
export type Outcome =
  | { kind: 'ok'; body: unknown }
  /** the key is unknown, rotated or its site deleted, or the request is refused for good: stop */
  | { kind: 'gone' }
  /** unreachable, overloaded or rate limited: try again later (at least retryAfterMs) */
  | { kind: 'retry'; retryAfterMs: number };

const TIMEOUT_MS = 10_000;

export async function fetchAnswer(url: string): Promise<Outcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    const response = await fetch(url, { credentials: 'omit', mode: 'cors', signal: controller.signal });
    if (response.ok) return { kind: 'ok', body: (await response.json()) as unknown };
    if (response.status === 429 || response.status >= 500) {
      const seconds = Number(response.headers.get('retry-after'));
      return { kind: 'retry', retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : 0 };
    }
    // 400 (a bad data-window), 403 (no reports on this plan), 404 (unknown or rotated key, deleted site)
    return { kind: 'gone' };
  } catch {
    return { kind: 'retry', retryAfterMs: 0 };
  } finally {
    clearTimeout(timer);
  }
}
