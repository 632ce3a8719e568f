import { describe, expect, it } from 'vitest';
import { ClientRateLimit } from './client-rate-limit.js';

describe('ClientRateLimit', () => {
  it('admits a minute’s allowance at once, then one request per 60/limit seconds, per address', () => {
    let now = 0;
    const limit = new ClientRateLimit(6, () => now);
    for (let i = 0; i < 6; i += 1) expect(limit.take('203.0.113.1')).toBeUndefined();
    // 6 per minute: a token every 10 s
    expect(limit.take('203.0.113.1')).toBe(10);
    expect(limit.take('203.0.113.2')).toBeUndefined();
    now += 4_000;
    expect(limit.take('203.0.113.1')).toBe(6);
    now += 6_000;
    expect(limit.take('203.0.113.1')).toBeUndefined();
    expect(limit.take('203.0.113.1')).toBe(10);
    // idle for long: back to a full bucket, never more
    now += 3_600_000;
    for (let i = 0; i < 6; i += 1) expect(limit.take('203.0.113.1')).toBeUndefined();
    expect(limit.take('203.0.113.1')).toBe(10);
  });

  it('0 means no limit', () => {
    const limit = new ClientRateLimit(0, () => 0);
    for (let i = 0; i < 1_000; i += 1) expect(limit.take('203.0.113.1')).toBeUndefined();
  });
});
