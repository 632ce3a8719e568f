import { describe, expect, it } from 'vitest';
import { canonicalTimezone, siteTimezones } from './timezones.js';

describe('site time zones', () => {
  it('canonicalizes names and links, and keeps UTC and the fixed offsets', () => {
    expect(canonicalTimezone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimezone('US/Pacific')).toBe('America/Los_Angeles');
    expect(canonicalTimezone('Etc/UTC')).toBe('UTC');
    expect([canonicalTimezone('Etc/GMT-14'), canonicalTimezone('Etc/GMT+12')]).toEqual(['Etc/GMT-14', 'Etc/GMT+12']);
  });

  it('refuses names Intl accepts but the tz database no longer has, and non-names', () => {
    for (const name of ['SystemV/EST5', 'SystemV/AST4ADT', 'Mars/Olympus', '+01:00', '']) expect(canonicalTimezone(name), name).toBeUndefined();
  });

  it('lists only canonical names: each maps to itself', () => {
    const zones = [...siteTimezones()];
    expect(zones.length).toBeGreaterThan(400);
    expect(zones.filter((zone) => canonicalTimezone(zone) !== zone)).toEqual([]);
  });
});
