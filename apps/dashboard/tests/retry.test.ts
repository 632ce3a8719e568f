import { describe, expect, it } from 'vitest';
import { isTransient, MAX_RETRY_WAIT_MS, pollDelayMs, retryDelayMs } from '../src/api/retry.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('retry of a busy answer', () => {
  it('retries 429 and 503 only', () => {
    expect(retryDelayMs(429, '2', NOW, 0)).toBe(2000);
    expect(retryDelayMs(503, '3', NOW, 0)).toBe(3000);
    for (const status of [400, 401, 404, 500, 502, 504]) expect(retryDelayMs(status, '1', NOW, 0), String(status)).toBeUndefined();
  });

  it('waits out Retry-After up to 10 s, and does not retry past it', () => {
    expect(retryDelayMs(429, '10', NOW, 0)).toBe(MAX_RETRY_WAIT_MS);
    expect(retryDelayMs(429, '11', NOW, 0)).toBeUndefined();
    expect(retryDelayMs(429, '3600', NOW, 0)).toBeUndefined();
    expect(retryDelayMs(429, '0', NOW, 0)).toBe(0);
  });

  it('reads an HTTP date, and refuses to guess at an unreadable header', () => {
    expect(retryDelayMs(503, 'Fri, 27 Nov 2026 12:00:04 GMT', NOW, 0)).toBe(4000);
    expect(retryDelayMs(503, 'Fri, 27 Nov 2026 11:59:00 GMT', NOW, 0)).toBe(0);
    expect(retryDelayMs(503, 'Fri, 27 Nov 2026 12:00:30 GMT', NOW, 0)).toBeUndefined();
    expect(retryDelayMs(429, 'soon', NOW, 0)).toBeUndefined();
    expect(retryDelayMs(429, '-5', NOW, 0)).toBeUndefined();
  });

  it('waits a second when no Retry-After is given', () => {
    expect(retryDelayMs(503, null, NOW, 0)).toBe(1000);
    expect(retryDelayMs(503, '  ', NOW, 0)).toBe(1000);
  });

  it('spreads a crowd by up to a fifth on top of the wait, never less than asked', () => {
    expect(retryDelayMs(429, '5', NOW, 0.5)).toBe(5500);
    expect(retryDelayMs(429, '5', NOW, 0.999)).toBe(5999);
    expect(retryDelayMs(429, '5', NOW, 7)).toBe(6000);
    expect(retryDelayMs(429, '5', NOW, -1)).toBe(5000);
  });
});

describe('realtime refresh back-off', () => {
  it('doubles from 30 s per failing refresh in a row, up to 4 min', () => {
    expect([0, 1, 2, 3, 4, 50].map((n) => pollDelayMs(30_000, n))).toEqual([30_000, 60_000, 120_000, 240_000, 240_000, 240_000]);
  });

  it('backs off for busy or unreachable, not for a wrong request', () => {
    expect([0, 429, 500, 502, 503, 504].every(isTransient)).toBe(true);
    expect([400, 401, 403, 404].some(isTransient)).toBe(false);
  });
});
