/**
 * Hand-built event histories in the product's import format (DESIGN "Event import
 * format"), for the query fixture suite. They are uploaded through
 * POST /api/v1/sites/{id}/imports, so sessions come from the real sessionizer.
 * Derivations of the expected answers live next to the assertions that use them.
 */
type Row = Record<string, unknown>;

export const toNdjson = (rows: readonly Row[]): string => rows.map((row) => JSON.stringify(row)).join('\n');

const A = {
  visitor_id: 'a',
  hostname: 'example.org',
  browser: 'Firefox',
  browser_version: '128.0',
  os: 'GNU/Linux',
  device: 'Desktop',
  country: 'DE',
  region: 'DE-BE',
  city: 2950159,
};
const B = {
  visitor_id: 'b',
  hostname: 'shop.example.org',
  browser: 'Mobile Safari',
  browser_version: '17.1.2',
  os: 'iOS',
  os_version: '17.1.2',
  device: 'smartphone',
  country: 'FR',
  region: 'FR-IDF',
  city: 2988507,
};
const C = {
  visitor_id: 'c',
  hostname: 'example.org',
  browser: 'Chrome',
  browser_version: '120.0.6099',
  os: 'Windows',
  os_version: '10',
  device: 'Desktop',
  country: 'DE',
  region: 'DE-BY',
  city: 2867714,
};
const D = {
  visitor_id: 'd',
  hostname: 'example.org',
  browser: 'Chrome',
  browser_version: '120.0',
  os: 'Mac',
  device: 'Desktop',
  country: 'US',
  region: 'US-CA',
  city: 5368361,
};

/**
 * Site "core" (UTC). Main window W = 2024-03-04 (Mon) .. 2024-03-10 (Sun); the
 * previous period P = 2024-02-26 .. 2024-03-03.
 *
 * In W:
 *   S1 (a) 03-05 10:00 /  → 10:05 /pricing → 10:06 engagement on /pricing (30 s, scroll 80)
 *          → 10:10 custom `signup` {plan: pro}. Google referrer; utm_campaign `spring, "big" sale`,
 *          utm_term `it's`. 2 pageviews, 600 s, not a bounce.
 *   S2 (b) 03-06 12:00 /docs/50%_off (status 404) → 12:01 engagement (10 s, scroll 40).
 *          Direct. 1 pageview, a bounce (engagement never un-bounces), 0 s.
 *   S3 (c) 03-08 09:00 / → 09:10 /pricing → 09:20 /docs/a\b and `signup` {plan: `team, "gold"`}.
 *          utm_source `news,letter`, utm_medium email, utm_content `a%b_c\d`. 3 pageviews, 1200 s.
 *   S4 (c) 03-08 10:00 /pricing (40 min after S3's last event: a new visit). Direct, a bounce.
 * In P:
 *   S5 (d) 02-28 15:00 / → 15:02 /pricing. Google referrer. 2 pageviews, 120 s.
 *   S6 (a) 03-01 08:00 /. Direct, a bounce.
 */
export const CORE_ROWS: Row[] = [
  {
    ...A,
    timestamp: '2024-03-05T10:00:00Z',
    name: 'pageview',
    pathname: '/',
    referrer: 'https://www.google.com/search?q=sightline',
    utm_campaign: 'spring, "big" sale',
    utm_term: "it's",
    status_code: 200,
  },
  { ...A, timestamp: '2024-03-05T10:05:00Z', name: 'pageview', pathname: '/pricing', status_code: 200 },
  { ...A, timestamp: '2024-03-05T10:06:00Z', name: 'engagement', pathname: '/pricing', engagement_ms: 30_000, scroll_depth: 80 },
  { ...A, timestamp: '2024-03-05T10:10:00Z', name: 'signup', pathname: '/pricing', props: { plan: 'pro' } },
  { ...B, timestamp: '2024-03-06T12:00:00Z', name: 'pageview', pathname: '/docs/50%_off', status_code: 404 },
  { ...B, timestamp: '2024-03-06T12:01:00Z', name: 'engagement', pathname: '/docs/50%_off', engagement_ms: 10_000, scroll_depth: 40 },
  {
    ...C,
    timestamp: '2024-03-08T09:00:00Z',
    name: 'pageview',
    pathname: '/',
    utm_source: 'news,letter',
    utm_medium: 'email',
    utm_content: 'a%b_c\\d',
    status_code: 200,
  },
  { ...C, timestamp: '2024-03-08T09:10:00Z', name: 'pageview', pathname: '/pricing', status_code: 200 },
  { ...C, timestamp: '2024-03-08T09:20:00Z', name: 'pageview', pathname: '/docs/a\\b', status_code: 200 },
  { ...C, timestamp: '2024-03-08T09:20:00Z', name: 'signup', pathname: '/docs/a\\b', props: { plan: 'team, "gold"' } },
  { ...C, timestamp: '2024-03-08T10:00:00Z', name: 'pageview', pathname: '/pricing', status_code: 200 },
  { ...D, timestamp: '2024-02-28T15:00:00Z', name: 'pageview', pathname: '/', referrer: 'https://www.google.com/', status_code: 200 },
  { ...D, timestamp: '2024-02-28T15:02:00Z', name: 'pageview', pathname: '/pricing', status_code: 200 },
  { ...A, timestamp: '2024-03-01T08:00:00Z', name: 'pageview', pathname: '/', status_code: 200 },
];

/**
 * Site "berlin" (Europe/Berlin). 2024-03-31 has no 02:00 (23 hours), 2024-10-27
 * repeats 02:00 (25 hours). Local times in comments.
 */
export const BERLIN_ROWS: Row[] = [
  { visitor_id: 'e', timestamp: '2024-03-30T22:59:00Z', name: 'pageview', pathname: '/' }, // 03-30 23:59 CET
  { visitor_id: 'f', timestamp: '2024-03-30T23:30:00Z', name: 'pageview', pathname: '/' }, // 03-31 00:30 CET
  { visitor_id: 'g', timestamp: '2024-03-31T01:30:00Z', name: 'pageview', pathname: '/' }, // 03-31 03:30 CEST (right after the skipped hour)
  { visitor_id: 'h', timestamp: '2024-03-31T21:59:00Z', name: 'pageview', pathname: '/' }, // 03-31 23:59 CEST
  { visitor_id: 'i', timestamp: '2024-03-31T22:30:00Z', name: 'pageview', pathname: '/' }, // 04-01 00:30 CEST
  { visitor_id: 'j', timestamp: '2024-10-27T02:30:00+02:00', name: 'pageview', pathname: '/' }, // 10-27 02:30 CEST (first 02:00), given with its offset
  { visitor_id: 'k', timestamp: '2024-10-27T02:30:00+01:00', name: 'pageview', pathname: '/' }, // 10-27 02:30 CET (second 02:00), given with its offset
  { visitor_id: 'l', timestamp: '2024-10-27T01:40:00Z', name: 'pageview', pathname: '/' }, // 10-27 02:40 CET (second 02:00)
];

/**
 * Site "edge" (UTC): a visit across midnight, per-page engagement in two sessions,
 * page paths holding LIKE wildcards for the page goals, a custom event with and
 * without a property.
 *   M (m) 05-01 23:50 /a_b → engagements on /a_b at 23:52 (10 s, scroll 30) and 23:55
 *         (20 s, scroll 70) → 05-02 00:10 /docs/x → 00:11 Download (no props). 1260 s.
 *   N (n) 05-02 08:00 /axb → 08:02 /a_b → 08:03 engagement on /a_b (30 s, scroll 50)
 *         → 08:04 Download {file: `x,y.pdf`}. 240 s.
 *   O (o) 05-02 09:00 /docs, a bounce.
 */
export const EDGE_ROWS: Row[] = [
  { visitor_id: 'm', timestamp: '2024-05-01T23:50:00Z', name: 'pageview', pathname: '/a_b' },
  { visitor_id: 'm', timestamp: '2024-05-01T23:52:00Z', name: 'engagement', pathname: '/a_b', engagement_ms: 10_000, scroll_depth: 30 },
  { visitor_id: 'm', timestamp: '2024-05-01T23:55:00Z', name: 'engagement', pathname: '/a_b', engagement_ms: 20_000, scroll_depth: 70 },
  { visitor_id: 'm', timestamp: '2024-05-02T00:10:00Z', name: 'pageview', pathname: '/docs/x' },
  { visitor_id: 'm', timestamp: '2024-05-02T00:11:00Z', name: 'Download', pathname: '/docs/x' },
  { visitor_id: 'n', timestamp: '2024-05-02T08:00:00Z', name: 'pageview', pathname: '/axb' },
  { visitor_id: 'n', timestamp: '2024-05-02T08:02:00Z', name: 'pageview', pathname: '/a_b' },
  { visitor_id: 'n', timestamp: '2024-05-02T08:03:00Z', name: 'engagement', pathname: '/a_b', engagement_ms: 30_000, scroll_depth: 50 },
  { visitor_id: 'n', timestamp: '2024-05-02T08:04:00Z', name: 'Download', pathname: '/a_b', props: { file: 'x,y.pdf' } },
  { visitor_id: 'o', timestamp: '2024-05-02T09:00:00Z', name: 'pageview', pathname: '/docs' },
];

/**
 * Site "counting" (America/Santiago): the counting rules of issue 29 on imported
 * rows. Local times in comments (UTC−4 in June).
 *   Exit pages, 2024-06-04 (host example.org):
 *     p (/a, /b) exits /b; q (/b) exits /b; r (/c, /a) exits /a; s (/a) exits /a; t (/d) exits /d.
 *     pageviews /a 3, /b 2, /c 1, /d 1 → exit rate /b 100, /d 100, /a 66.7.
 *   Hostnames, 2024-06-05: u (Google) a.example.org /x → b.example.org /y, 60 s;
 *     v (Google) b.example.org /y, a bounce; w (Bing) b.example.org /z → a.example.org /x, 120 s.
 *   Versions, 2024-06-06: x Chrome 56 on Android 14 (a bare major is kept).
 *   Day start: Santiago fell back 24:00 → 23:00 on 2024-04-06 (03:00Z on 04-07):
 *     y 02:30Z and z 03:30Z are both 04-06 23:30; zz 04:30Z is 04-07 00:30.
 */
const at = (visitor_id: string, timestamp: string, pathname: string, extra: Row = {}): Row => ({
  visitor_id,
  timestamp,
  name: 'pageview',
  pathname,
  hostname: 'example.org',
  ...extra,
});
const onA = { hostname: 'a.example.org' };
const onB = { hostname: 'b.example.org' };
export const COUNTING_ROWS: Row[] = [
  at('p', '2024-06-04T14:00:00Z', '/a'),
  at('p', '2024-06-04T14:01:00Z', '/b'),
  at('q', '2024-06-04T15:00:00Z', '/b'),
  at('r', '2024-06-04T16:00:00Z', '/c'),
  at('r', '2024-06-04T16:01:00Z', '/a'),
  at('s', '2024-06-04T17:00:00Z', '/a'),
  at('t', '2024-06-04T18:00:00Z', '/d'),
  at('u', '2024-06-05T14:00:00Z', '/x', { ...onA, source: 'Google' }),
  at('u', '2024-06-05T14:01:00Z', '/y', { ...onB, source: 'Google' }),
  at('v', '2024-06-05T15:00:00Z', '/y', { ...onB, source: 'Google' }),
  at('w', '2024-06-05T16:00:00Z', '/z', { ...onB, source: 'Bing' }),
  at('w', '2024-06-05T16:02:00Z', '/x', { ...onA, source: 'Bing' }),
  at('x', '2024-06-06T14:00:00Z', '/', { browser: 'Chrome', browser_version: '56', os: 'Android', os_version: '14' }),
  at('y', '2024-04-07T02:30:00Z', '/'),
  at('z', '2024-04-07T03:30:00Z', '/'),
  at('zz', '2024-04-07T04:30:00Z', '/'),
];
