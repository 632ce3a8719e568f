import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseImportLine } from './parse-line.js';

// The fixture follows Google's published BigQuery export schema (see fixtures/README.md).
const lines = readFileSync(new URL('./fixtures/ga4-export.ndjson', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const NOW = Date.UTC(2025, 0, 1);
const parse = (i: number) => parseImportLine(lines[i]!, 'ga4-bigquery', { importId: 1, siteId: 2, line: i + 1 }, NOW);

describe('GA4 BigQuery export lines', () => {
  it('rejects GA4 bookkeeping events and lines without a timestamp, with the reason', () => {
    expect(parse(0)).toEqual({ ok: false, reason: 'GA4 bookkeeping event session_start is not imported (Sightline builds sessions itself)' });
    expect(parse(8)).toEqual({ ok: false, reason: 'event_timestamp must be microseconds since the epoch' });
  });

  it('page_view: µs → ms, page_location → host and path, utm from collected_traffic_source, geo names → codes, device fields normalised', () => {
    const out = parse(1);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.row).toMatchObject({
      timestamp: '2024-03-01 10:00:00.123',
      name: 'pageview',
      visitor_key: '1197596843.1709280000',
      hostname: 'example.org',
      pathname: '/',
      source: 'newsletter',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring',
      channel: 'Email',
      country: 'DE',
      region: 'DE-BY',
      city: 2867714,
      browser: 'Chrome',
      browser_version: '120.0.6099.129',
      os: 'Windows',
      os_version: '10',
      device: 'Desktop',
      prop_keys: [],
      scroll_depth: 255,
    });
  });

  it('scroll → engagement at 90 %, user_engagement → engagement with its engaged time, other names → custom events with their params', () => {
    const scroll = parse(2);
    expect(scroll.ok && [scroll.row.name, scroll.row.scroll_depth, scroll.row.engagement_ms]).toEqual(['engagement', 90, 0]);
    const engaged = parse(3);
    expect(engaged.ok && [engaged.row.name, engaged.row.engagement_ms, engaged.row.scroll_depth]).toEqual(['engagement', 12000, 255]);
    const custom = parse(5);
    expect(custom.ok && [custom.row.name, custom.row.pathname, custom.row.prop_keys, custom.row.prop_values]).toEqual([
      'sign_up',
      '/pricing',
      ['method', 'value'],
      ['email', '9.99'],
    ]);
  });

  it('a referrer gives source and channel when the hit carries no utm; traffic_source (first touch) is not used then', () => {
    const google = parse(6);
    expect(google.ok && [google.row.source, google.row.referrer, google.row.channel, google.row.utm_source, google.row.utm_medium]).toEqual([
      'Google',
      'www.google.com',
      'Organic Search',
      '',
      '',
    ]);
    expect(
      google.ok && [google.row.country, google.row.region, google.row.city, google.row.browser, google.row.os, google.row.os_version, google.row.device],
    ).toEqual(['US', 'US-CA', 5368361, 'Safari', 'iOS', '17.1.2', 'Mobile']);
    const facebook = parse(7);
    expect(
      facebook.ok && [facebook.row.source, facebook.row.channel, facebook.row.region, facebook.row.city, facebook.row.browser, facebook.row.device],
    ).toEqual(['facebook', 'Organic Social', 'FR-IDF', 2988507, 'Samsung Browser', 'Tablet']);
  });

  it('an unknown place name leaves the geo fields empty instead of rejecting the event', () => {
    const row = JSON.parse(lines[1]!);
    row.geo = { country: 'Atlantis', region: 'Nowhere', city: 'Ys' };
    const out = parseImportLine(JSON.stringify(row), 'ga4-bigquery', { importId: 1, siteId: 2, line: 1 }, NOW);
    expect(out.ok && [out.row.country, out.row.region, out.row.city]).toEqual(['', '', 0]);
  });
});
