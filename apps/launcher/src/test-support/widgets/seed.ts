import { SITE_HOST } from '../dashboard/seed.js';

/**
 * The widget tests' data set, relative to the moment the suite starts (T), in the
 * import format (DESIGN "Event import format"). Every expected number is derived by
 * hand below; the widgets must show exactly these.
 *
 * Visitors (one pageview each unless said):
 *   a  DE Berlin   T−1 min      b  DE Berlin   T−2 min      c  FR Paris   T−3 min
 *   d  US Los Angeles T−10 min  e  GB London   T−20 min
 *   f  DE (no city) 3 days ago  g  NL (no city) 5 days ago  h  no country 6 days ago
 *   i  DE Munich  10 days ago   j  JP Tokyo    40 days ago
 *   x  DE Berlin  T−4 min, every text field hostile (path, referrer, props)
 *
 * live-users (last 5 minutes): a, b, c, x → 4 visitors; sparkline of 30 minutes:
 *   one visitor in each of the minutes of a, b, c, x, d, e → peak 1 a minute, sum 6.
 * globe (last 30 minutes): a b c x d e → 6 visitors from 4 places (Berlin 3, Paris,
 *   Los Angeles, London 1 each); countries DE 3 (50.0 %), FR, GB, US 1 (16.7 %).
 * countries / map, 30 days: a b c x d e f g h i → 10 visitors (h counted, not listed);
 *   DE a b x f i = 5 (50.0 %), then FR, GB, NL, US 1 each (10.0 %), sorted by code.
 * 7 days: the same less i → 9 visitors; DE 4 (44.4 %), FR, GB, NL, US 1 (11.1 %).
 */
/** the host of the site the dashboard harness creates (test-support/dashboard), which these suites reuse */
export { SITE_HOST };

export const HOSTILE = {
  path: '/<img src=x onerror="window.__pwned=1;alert(1)">',
  referrer: 'javascript:alert(1)//<script>window.__pwned=1</script>',
  propValue: '<svg onload="window.__pwned=1">',
} as const;

export interface City {
  id: number;
  name: string;
  /** GeoNames coordinates rounded to 2 decimals, as the data endpoint answers them */
  lat: number;
  lon: number;
}
export const CITIES = {
  berlin: { id: 2950159, name: 'Berlin', lat: 52.52, lon: 13.41 },
  paris: { id: 2988507, name: 'Paris', lat: 48.85, lon: 2.35 },
  losAngeles: { id: 5368361, name: 'Los Angeles', lat: 34.05, lon: -118.24 },
  london: { id: 2643743, name: 'London', lat: 51.51, lon: -0.13 },
  munich: { id: 2867714, name: 'Munich', lat: 48.14, lon: 11.58 },
  tokyo: { id: 1850147, name: 'Tokyo', lat: 35.69, lon: 139.69 },
} satisfies Record<string, City>;

export interface SeedRow {
  visitor_id: string;
  hostname: string;
  timestamp: string;
  name: string;
  pathname: string;
  referrer?: string;
  props?: Record<string, string>;
  country?: string;
  city?: number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export function seedRows(now: Date): SeedRow[] {
  const at = (ms: number) => new Date(now.getTime() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const row = (visitor: string, ago: number, country?: string, city?: City): SeedRow => ({
    visitor_id: visitor,
    hostname: SITE_HOST,
    timestamp: at(ago),
    name: 'pageview',
    pathname: '/',
    ...(country ? { country } : {}),
    ...(city ? { city: city.id } : {}),
  });
  return [
    row('a', 1 * MINUTE, 'DE', CITIES.berlin),
    row('b', 2 * MINUTE, 'DE', CITIES.berlin),
    row('c', 3 * MINUTE, 'FR', CITIES.paris),
    { ...row('x', 4 * MINUTE, 'DE', CITIES.berlin), pathname: HOSTILE.path, referrer: HOSTILE.referrer, props: { '<b>k</b>': HOSTILE.propValue } },
    row('d', 10 * MINUTE, 'US', CITIES.losAngeles),
    row('e', 20 * MINUTE, 'GB', CITIES.london),
    row('f', 3 * DAY, 'DE'),
    row('g', 5 * DAY, 'NL'),
    row('h', 6 * DAY),
    row('i', 10 * DAY, 'DE', CITIES.munich),
    row('j', 40 * DAY, 'JP', CITIES.tokyo),
  ];
}

/** The numbers above, as the widgets must show them (English, en-US grouping). */
export const EXPECTED = {
  liveVisitors: 4,
  sparklinePeak: 1,
  globe: { visitors: 6, places: 4, countries: ['Germany 3', 'France 1', 'United Kingdom 1', 'United States 1'] },
  days30: {
    visitors: 10,
    rows: [
      ['Germany', '5', '50.0%'],
      ['France', '1', '10.0%'],
      ['United Kingdom', '1', '10.0%'],
      ['Netherlands', '1', '10.0%'],
      ['United States', '1', '10.0%'],
    ],
  },
  days7: {
    visitors: 9,
    rows: [
      ['Germany', '4', '44.4%'],
      ['France', '1', '11.1%'],
      ['United Kingdom', '1', '11.1%'],
      ['Netherlands', '1', '11.1%'],
      ['United States', '1', '11.1%'],
    ],
  },
} as const;

export function toNdjson(rows: SeedRow[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n');
}
