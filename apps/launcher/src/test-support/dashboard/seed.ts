/**
 * The dashboard tests' data set, in the import format (DESIGN "Event import format"),
 * uploaded through POST /api/v1/sites/{id}/imports so sessions come from the real
 * sessionizer. Every expected number below is derived by hand in the comments; the
 * tests compare the page against these AND against POST /api/v1/query.
 *
 * Site timezone UTC. Main window W = 2024-03-04 (Mon) .. 2024-03-10 (Sun), shown as the
 * custom range `?period=custom&from=2024-03-04&to=2024-03-10`; its previous period
 * P = 2024-02-26 .. 2024-03-03. Sessions end after 30 idle minutes; a custom event
 * extends a visit's duration, an engagement event does not (SEMANTICS).
 *
 * In W (visitor: attributes):
 *   a: Firefox, GNU/Linux, Desktop, DE (DE-BE, Berlin)
 *   b: Safari, iOS, Mobile, FR (FR-IDF, Paris)
 *   c: Chrome, Windows, Desktop, DE (DE-BY, Munich)
 *   d: Chrome, Mac, Desktop, US (US-CA, Los Angeles)
 *   e: Chrome, Windows, Desktop, NL
 *   h: Microsoft Edge, Windows, Desktop, GB — the attacker: every text field hostile
 *
 *   S1  (a) 03-05 10:00 /  (Google) → 10:05 /pricing → 10:06 engagement → 10:10 Signup {plan: pro}
 *           2 pageviews, 600 s, not a bounce, Organic Search
 *   S2  (b) 03-06 12:00 /docs, Direct, a bounce, 0 s
 *   S3  (c) 03-08 09:00 /  (utm newsletter / email) → 09:10 /pricing → 09:20 Signup {plan: team}
 *           2 pageviews, 1200 s, Email
 *   S3b (c) 03-08 10:00 /pricing (40 min after S3's last event: a new visit), Direct, a bounce
 *   S4  (d) 03-09 15:00 /  (Hacker News), a bounce, Organic Social
 *   S5  (e) 03-10 14:00 / → 14:05 /docs → 14:06 Signup {plan: pro}; 2 pageviews, 360 s, Direct
 *   SH1 (h) 03-07 08:00 HOSTILE.scriptPath (javascript: referrer, hostile utm_*)
 *           → 08:01 HOSTILE.controlPath → 08:02 the hostile custom event; 2 pageviews, 120 s
 *   SH2 (h) 03-07 12:00 /docs with HOSTILE.controlReferrer, a bounce, 0 s
 *
 * In P:
 *   S6  (d) 02-28 15:00 / (Google) → 15:02 /pricing; 2 pageviews, 120 s
 *   S7  (a) 03-01 08:00 /, Direct, a bounce
 *
 * Recent rows (relative to the day the test runs, for the 7d / 30d periods; outside W and P):
 *   r1, r2 two days ago at 10:00 and 11:00 UTC on /recent; r3 ten days ago on /recent.
 *   → last 7 days: 2 visitors; last 30 days: 3 visitors.
 */

/** Attacker-controlled text: anyone may post events to a tracking key. */
export const HOSTILE = {
  scriptPath: '/<script>window.__pwned=1;alert(1)</script>',
  controlPath: '/a\r\nb\u0000c',
  javascriptReferrer: 'javascript:alert(1)',
  controlReferrer: 'evil\r\nSet-Cookie: x=1\u0000<img src=x onerror="window.__pwned=1;alert(1)">',
  utmSource: '<img src=x onerror="window.__pwned=1;alert(1)">',
  utmMedium: 'email\r\nX-Injected: 1',
  /** also a spreadsheet formula: the CSV export must neutralise it */
  utmCampaign: '=HYPERLINK("javascript:alert(1)","<script>window.__pwned=1</script>")',
  utmContent: 'nul\u0000byte<svg onload=alert(1)>',
  utmTerm: 'javascript:alert(1)',
  eventName: '<script>alert(1)</script>\r\n\u0000evt',
  propKey: '<img src=x onerror=alert(1)>',
  propValue: '<script>window.__pwned=1</script>\r\n\u0000v',
} as const;

/** Every hostile string, for "shown as text somewhere" checks. */
export const HOSTILE_VALUES: readonly string[] = Object.values(HOSTILE);

export const WINDOW = { from: '2024-03-04', to: '2024-03-10' } as const;
export const PREVIOUS = { from: '2024-02-26', to: '2024-03-03' } as const;
export const SITE_HOST = 'dash.sightline-e2e.net';
export const GOAL = 'Signup';

type Row = Record<string, unknown>;

const A = {
  visitor_id: 'a',
  hostname: SITE_HOST,
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
  hostname: SITE_HOST,
  browser: 'Safari',
  browser_version: '17.1',
  os: 'iOS',
  os_version: '17.1',
  device: 'Mobile',
  country: 'FR',
  region: 'FR-IDF',
  city: 2988507,
};
const C = {
  visitor_id: 'c',
  hostname: SITE_HOST,
  browser: 'Chrome',
  browser_version: '120.0',
  os: 'Windows',
  os_version: '10',
  device: 'Desktop',
  country: 'DE',
  region: 'DE-BY',
  city: 2867714,
};
const D = {
  visitor_id: 'd',
  hostname: SITE_HOST,
  browser: 'Chrome',
  browser_version: '120.0',
  os: 'Mac',
  device: 'Desktop',
  country: 'US',
  region: 'US-CA',
  city: 5368361,
};
const E = {
  visitor_id: 'e',
  hostname: SITE_HOST,
  browser: 'Chrome',
  browser_version: '121.0',
  os: 'Windows',
  os_version: '11',
  device: 'Desktop',
  country: 'NL',
};
const H = {
  visitor_id: 'h',
  hostname: SITE_HOST,
  browser: 'Microsoft Edge',
  browser_version: '120.0',
  os: 'Windows',
  os_version: '10',
  device: 'Desktop',
  country: 'GB',
  region: 'GB-ENG',
  city: 2643743,
  channel: 'Referral',
};

export const WINDOW_ROWS: Row[] = [
  { ...A, timestamp: '2024-03-05T10:00:00Z', name: 'pageview', pathname: '/', referrer: 'https://www.google.com/' },
  { ...A, timestamp: '2024-03-05T10:05:00Z', name: 'pageview', pathname: '/pricing' },
  { ...A, timestamp: '2024-03-05T10:06:00Z', name: 'engagement', pathname: '/pricing', engagement_ms: 30_000, scroll_depth: 80 },
  { ...A, timestamp: '2024-03-05T10:10:00Z', name: GOAL, pathname: '/pricing', props: { plan: 'pro' } },
  { ...B, timestamp: '2024-03-06T12:00:00Z', name: 'pageview', pathname: '/docs' },
  { ...C, timestamp: '2024-03-08T09:00:00Z', name: 'pageview', pathname: '/', utm_source: 'newsletter', utm_medium: 'email' },
  { ...C, timestamp: '2024-03-08T09:10:00Z', name: 'pageview', pathname: '/pricing' },
  { ...C, timestamp: '2024-03-08T09:20:00Z', name: GOAL, pathname: '/pricing', props: { plan: 'team' } },
  { ...C, timestamp: '2024-03-08T10:00:00Z', name: 'pageview', pathname: '/pricing' },
  { ...D, timestamp: '2024-03-09T15:00:00Z', name: 'pageview', pathname: '/', referrer: 'https://news.ycombinator.com/' },
  { ...E, timestamp: '2024-03-10T14:00:00Z', name: 'pageview', pathname: '/' },
  { ...E, timestamp: '2024-03-10T14:05:00Z', name: 'pageview', pathname: '/docs' },
  { ...E, timestamp: '2024-03-10T14:06:00Z', name: GOAL, pathname: '/docs', props: { plan: 'pro' } },
  {
    ...H,
    timestamp: '2024-03-07T08:00:00Z',
    name: 'pageview',
    pathname: HOSTILE.scriptPath,
    referrer: HOSTILE.javascriptReferrer,
    utm_source: HOSTILE.utmSource,
    utm_medium: HOSTILE.utmMedium,
    utm_campaign: HOSTILE.utmCampaign,
    utm_content: HOSTILE.utmContent,
    utm_term: HOSTILE.utmTerm,
  },
  { ...H, timestamp: '2024-03-07T08:01:00Z', name: 'pageview', pathname: HOSTILE.controlPath },
  { ...H, timestamp: '2024-03-07T08:02:00Z', name: HOSTILE.eventName, pathname: HOSTILE.controlPath, props: { [HOSTILE.propKey]: HOSTILE.propValue } },
  { ...H, timestamp: '2024-03-07T12:00:00Z', name: 'pageview', pathname: '/docs', referrer: HOSTILE.controlReferrer },
];

export const PREVIOUS_ROWS: Row[] = [
  { ...D, timestamp: '2024-02-28T15:00:00Z', name: 'pageview', pathname: '/', referrer: 'https://www.google.com/' },
  { ...D, timestamp: '2024-02-28T15:02:00Z', name: 'pageview', pathname: '/pricing' },
  { ...A, timestamp: '2024-03-01T08:00:00Z', name: 'pageview', pathname: '/' },
];

const dayOffset = (now: Date, days: number, hour: number) => {
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - days, hour));
  return at.toISOString().replace('.000Z', 'Z');
};

export function recentRows(now: Date): Row[] {
  return [
    { visitor_id: 'r1', hostname: SITE_HOST, timestamp: dayOffset(now, 2, 10), name: 'pageview', pathname: '/recent' },
    { visitor_id: 'r2', hostname: SITE_HOST, timestamp: dayOffset(now, 2, 11), name: 'pageview', pathname: '/recent' },
    { visitor_id: 'r3', hostname: SITE_HOST, timestamp: dayOffset(now, 10, 10), name: 'pageview', pathname: '/recent' },
  ];
}

export const toNdjson = (rows: readonly Row[]): string => rows.map((row) => JSON.stringify(row)).join('\n');

/**
 * The hand-computed answers for W.
 * visitors: a b c d e h = 6. visits: S1 S2 S3 S3b S4 S5 SH1 SH2 = 8.
 * pageviews: 2+1+2+1+1+2+2+1 = 12. views per visit: 12/8 = 1.5.
 * bounces: S2 S3b S4 SH2 = 4 of 8 → 50 %. duration: (600+0+1200+0+0+360+120+0)/8 = 2280/8 = 285 s.
 */
export const TOTALS = { visitors: 6, visits: 8, pageviews: 12, views_per_visit: 1.5, bounce_rate: 50, visit_duration: 285 } as const;
/** P: visitors d a = 2, visits 2, pageviews 3, bounce 1/2 = 50 %, duration (120+0)/2 = 60 s, 1.5 views per visit. */
export const PREVIOUS_TOTALS = { visitors: 2, visits: 2, pageviews: 3, views_per_visit: 1.5, bounce_rate: 50, visit_duration: 60 } as const;
/**
 * The change against P: visitors (6−2)/2 = +200 %, visits (8−2)/2 = +300 %, pageviews (12−3)/3 = +300 %,
 * duration (285−60)/60 = +375 %, views per visit ±0 %, bounce rate 50 − 50 = ±0 pp.
 */
export const CHANGE = { visitors: 200, visits: 300, pageviews: 300, visit_duration: 375, views_per_visit: 0, bounce_rate: 0 } as const;
export const CHANGE_TEXT = {
  visitors: '+200%',
  visits: '+300%',
  pageviews: '+300%',
  visit_duration: '+375%',
  views_per_visit: '±0%',
  bounce_rate: '±0 pp',
} as const;
/** As the page formats them (apps/dashboard format.ts): 285 s → "4m 45s", 1.5 → "1.50". */
export const TOTALS_TEXT = { visitors: '6', visits: '8', pageviews: '12', views_per_visit: '1.50', bounce_rate: '50%', visit_duration: '4m 45s' } as const;

/** Visitors and pageviews per day in W (time:day). 03-07: h's two visits; 03-08: c's two visits. */
export const DAILY: ReadonlyArray<{ day: string; visitors: number; pageviews: number }> = [
  { day: '2024-03-04', visitors: 0, pageviews: 0 },
  { day: '2024-03-05', visitors: 1, pageviews: 2 },
  { day: '2024-03-06', visitors: 1, pageviews: 1 },
  { day: '2024-03-07', visitors: 1, pageviews: 3 },
  { day: '2024-03-08', visitors: 1, pageviews: 3 },
  { day: '2024-03-09', visitors: 1, pageviews: 1 },
  { day: '2024-03-10', visitors: 1, pageviews: 2 },
];

/**
 * event:page (visitors, pageviews): / a c d e → 4 / 4; /docs b h e → 3 / 3;
 * /pricing a c → 2 / 3 (c twice); each hostile path h → 1 / 1.
 */
export const TOP_PAGES: ReadonlyArray<[page: string, visitors: number, pageviews: number]> = [
  ['/', 4, 4],
  ['/docs', 3, 3],
  ['/pricing', 2, 3],
];
export const HOSTILE_PAGES: ReadonlyArray<[page: string, visitors: number, pageviews: number]> = [
  [HOSTILE.scriptPath, 1, 1],
  [HOSTILE.controlPath, 1, 1],
];
/** visit:entry_page (visits): / S1 S3 S4 S5 = 4; /docs S2 SH2 = 2; /pricing S3b = 1; HOSTILE.scriptPath SH1 = 1. */
export const ENTRY_PAGES: ReadonlyArray<[page: string, visits: number]> = [
  ['/', 4],
  ['/docs', 2],
];

/**
 * visit:source (visitors): Direct (no source) b c(S3b) e h(SH2: a non-URL referrer names no source) = 4;
 * Google a, newsletter c, Hacker News d, HOSTILE.utmSource h = 1 each.
 */
export const DIRECT_VISITORS = 4;
export const SOURCES_ONE_EACH = ['Google', 'newsletter', 'Hacker News'] as const;
/** visit:channel (visitors): Direct b c e = 3; Organic Search a, Email c, Organic Social d, Referral h = 1 each. */
export const CHANNELS: ReadonlyArray<[channel: string, visitors: number]> = [['Direct', 3]];

/** visit:country (visitors): DE a c = 2; FR, US, NL, GB 1 each. */
export const COUNTRIES: ReadonlyArray<[code: string, name: string, visitors: number]> = [
  ['DE', 'Germany', 2],
  ['FR', 'France', 1],
  ['GB', 'United Kingdom', 1],
  ['NL', 'Netherlands', 1],
  ['US', 'United States', 1],
];
/** visit:browser: Chrome c d e = 3; Firefox, Safari, Microsoft Edge 1 each. visit:device: Desktop 5, Mobile 1. visit:os: Windows c e h = 3. */
export const BROWSERS: ReadonlyArray<[browser: string, visitors: number]> = [
  ['Chrome', 3],
  ['Firefox', 1],
  ['Microsoft Edge', 1],
  ['Safari', 1],
];
export const DEVICES: ReadonlyArray<[device: string, visitors: number]> = [
  ['Desktop', 5],
  ['Mobile', 1],
];
export const TOP_OS: readonly [os: string, visitors: number] = ['Windows', 3];

/** Goal Signup: converters a c e = 3 of 6 visitors → 50 %; 3 conversions. Its prop plan: pro a e = 2, team c = 1. */
export const GOAL_ROW = { visitors: 3, events: 3, conversion_rate: 50 } as const;
export const PLAN_PROPS: ReadonlyArray<[value: string, visitors: number]> = [
  ['pro', 2],
  ['team', 1],
];

/** The filter a row click on "/pricing" applies, and W's numbers under it:
 * sessions that viewed /pricing — visitors a c = 2; pageviews under a page filter count only /pricing's: 3.
 * (Visit-level panels keep whole visits: S1 S3 S3b → sources Google a, newsletter c, Direct c.)
 */
export const PRICING_FILTERED = { visitors: 2, pageviews: 3 } as const;
/** The filter a row click on Germany applies: a c → visitors 2, visits S1 S3 S3b = 3, pageviews 2+2+1 = 5. */
/** The filter `event is Signup` keeps the visits where it fired: S1 S3 S5 → visitors a c e = 3, pageviews 2+2+2 = 6. */
export const SIGNUP_FILTERED = { visitors: 3, visits: 3, pageviews: 6 } as const;
/** The filters page is /pricing and browser is Chrome: c only → visitors 1; /pricing's pageviews in S3 and S3b = 2. */
export const PRICING_CHROME_FILTERED = { visitors: 1, pageviews: 2 } as const;
export const GERMANY_FILTERED = { visitors: 2, visits: 3, pageviews: 5 } as const;
