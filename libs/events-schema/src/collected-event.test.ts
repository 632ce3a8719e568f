import { describe, expect, it } from 'vitest';
import { CollectedEvent, TrackerPayload } from './collected-event.js';

const base = { k: 'abcdEFGH1234', n: 'pageview', u: 'https://a.example/x', d: 'a.example' };

describe('TrackerPayload', () => {
  it('accepts null for every optional field and drops it (same as absent)', () => {
    const parsed = TrackerPayload.parse({ ...base, r: null, p: null, e: null, sd: null, sc: null, s: null });
    expect(parsed).toEqual(base);
    expect(Object.keys(parsed).sort()).toEqual(['d', 'k', 'n', 'u']);
  });

  it('keeps present optional values', () => {
    expect(TrackerPayload.parse({ ...base, r: 'https://ref.example/', s: null, sc: 404 })).toEqual({ ...base, r: 'https://ref.example/', sc: 404 });
  });

  it('still refuses null for a required field, and unknown fields', () => {
    expect(TrackerPayload.safeParse({ ...base, u: null }).success).toBe(false);
    expect(TrackerPayload.safeParse({ ...base, x: 1 }).success).toBe(false);
    expect(TrackerPayload.safeParse({ ...base, r: 5 }).success).toBe(false);
  });
});

describe('CollectedEvent', () => {
  it('parses the bus message with the gateway fields, nulls dropped', () => {
    const message = { ...base, r: null, ts: '2026-03-02T10:00:00.000Z', ip: '192.0.2.1', ua: 'UA/1' };
    expect(CollectedEvent.parse(message)).toEqual({ ...base, ts: '2026-03-02T10:00:00.000Z', ip: '192.0.2.1', ua: 'UA/1' });
  });
});
