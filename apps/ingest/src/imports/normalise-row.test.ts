import { describe, expect, it } from 'vitest';
import { ImportRow } from '@sightline/events-schema';
import { browserName, deviceName, normaliseRow, osName, osVersion } from './normalise-row.js';

const ids = { importId: 7, siteId: 3, line: 12 };
const NOW = Date.UTC(2025, 0, 1);
const row = (fields: Record<string, unknown>) =>
  ImportRow.parse({ timestamp: '2024-03-01T12:00:00Z', name: 'pageview', visitor_id: '42', pathname: '/', ...fields });

describe('normaliseRow', () => {
  it('defaults everything but the four required fields: Direct, no geo, sentinels for unrecorded numbers', () => {
    const out = normaliseRow(row({}), ids, NOW);
    expect(out).toMatchObject({ ok: true, ms: Date.UTC(2024, 2, 1, 12) });
    if (!out.ok) return;
    expect(out.row).toMatchObject({
      import_id: 7,
      site_id: 3,
      line: 12,
      visitor_key: '42',
      timestamp: '2024-03-01 12:00:00.000',
      source: '',
      channel: 'Direct',
      city: 0,
      scroll_depth: 255,
      status_code: 0,
      engagement_ms: 0,
      prop_keys: [],
      prop_values: [],
    });
  });

  it('takes the source from utm_source, then from a referrer URL (stored as host + path), and classifies the channel', () => {
    const utm = normaliseRow(row({ utm_source: 'newsletter', utm_medium: 'email' }), ids, NOW);
    expect(utm.ok && [utm.row.source, utm.row.channel]).toEqual(['newsletter', 'Email']);
    const google = normaliseRow(row({ hostname: 'www.Example.org', referrer: 'https://www.google.co.uk/search?q=x' }), ids, NOW);
    expect(google.ok && [google.row.hostname, google.row.referrer, google.row.source, google.row.channel]).toEqual([
      'example.org',
      'www.google.co.uk/search',
      'Google',
      'Organic Search',
    ]);
    // a given channel wins; a same-host referrer is no source
    const given = normaliseRow(row({ hostname: 'example.org', referrer: 'https://example.org/a', channel: 'Affiliates' }), ids, NOW);
    expect(given.ok && [given.row.source, given.row.referrer, given.row.channel]).toEqual(['', '', 'Affiliates']);
  });

  it('refuses timestamps before 2000 or more than a day ahead', () => {
    expect(normaliseRow(row({ timestamp: '1999-12-31T23:59:59Z' }), ids, NOW)).toEqual({ ok: false, reason: 'timestamp is before 2000-01-01' });
    expect(normaliseRow(row({ timestamp: '2025-01-02T00:00:01Z' }), ids, NOW)).toEqual({ ok: false, reason: 'timestamp is in the future' });
  });

  it("reads a date-time without a zone as UTC whatever the server's time zone; offsets are honoured", () => {
    const serverZone = process.env.TZ;
    process.env.TZ = 'America/New_York'; // Node applies a changed TZ at once
    try {
      for (const timestamp of ['2024-03-01T12:00:00', '2024-03-01 12:00:00', '2024-03-01T12:00', '2024-03-01T12:00:00.000']) {
        expect(normaliseRow(row({ timestamp }), ids, NOW)).toMatchObject({ ok: true, ms: Date.UTC(2024, 2, 1, 12) });
      }
      expect(normaliseRow(row({ timestamp: '2024-03-01T12:00:00+02:00' }), ids, NOW)).toMatchObject({ ok: true, ms: Date.UTC(2024, 2, 1, 10) });
      expect(normaliseRow(row({ timestamp: '2024-03-01' }), ids, NOW)).toMatchObject({ ok: true, ms: Date.UTC(2024, 2, 1) });
    } finally {
      if (serverZone === undefined) delete process.env.TZ;
      else process.env.TZ = serverZone;
    }
    expect(ImportRow.safeParse({ timestamp: 'March 1st', name: 'pageview', visitor_id: '1', pathname: '/' }).success).toBe(false);
  });

  it('maps names to the live vocabulary and keeps versions as written (only a repeated OS name goes)', () => {
    expect(['Mobile Safari', 'Edge', 'Samsung Internet', 'Android Webview', 'Vivaldi'].map(browserName)).toEqual([
      'Safari',
      'Microsoft Edge',
      'Samsung Browser',
      'Mobile App',
      'Vivaldi',
    ]);
    expect(['Mac OS', 'Macintosh', 'Linux', 'Chrome OS', 'iOS'].map(osName)).toEqual(['Mac', 'Mac', 'GNU/Linux', 'Chrome OS', 'iOS']);
    expect(['mobile', 'TABLET', 'smart tv', 'desktop', 'Watch'].map(deviceName)).toEqual(['Mobile', 'Tablet', 'Desktop', 'Desktop', 'Watch']);
    expect([
      osVersion('iOS', 'iOS', 'iOS 17.1.2'),
      osVersion('Windows', 'Windows', 'Windows 10'),
      osVersion('Android', 'Android', 'Android 14'),
      osVersion('iOS', 'iOS', ' 17.4.1 '),
    ]).toEqual(['17.1.2', '10', '14', '17.4.1']);
    const out = normaliseRow(row({ browser_version: '128.0.6613.84', props: { plan: 'pro', seats: 3, trial: false } }), ids, NOW);
    expect(out.ok && [out.row.browser_version, out.row.prop_keys, out.row.prop_values]).toEqual([
      '128.0.6613.84',
      ['plan', 'seats', 'trial'],
      ['pro', '3', 'false'],
    ]);
    // a bare major version was dropped silently until 2026-11 (major.minor only)
    const major = normaliseRow(row({ browser: 'Chrome', browser_version: '56', os: 'Android', os_version: '14' }), ids, NOW);
    expect(major.ok && [major.row.browser_version, major.row.os_version]).toEqual(['56', '14']);
  });
});
