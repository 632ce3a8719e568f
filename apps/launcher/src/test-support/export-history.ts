import {
  emptySessionAttributes,
  ENGAGEMENT,
  PAGEVIEW,
  SCROLL_DEPTH_NONE,
  STATUS_CODE_NONE,
  type EventRow,
  type SessionAttributes,
  type SessionRow,
} from '@sightline/events-schema';
import type { EventStore } from '@sightline/event-store';
import { seededRandom as random } from '@sightline/testkit';
import { sessionizeVisitor, type SessionEvent } from '@sightline/ingest';

/**
 * A site's history generated straight into the events store, as live ingest would
 * have written it: seeded events per visitor, in time order, through ingest's own pure
 * sessionizer (every session version, like live traffic), then inserted. Built for the
 * export round trip: values with commas, quotes, line breaks and non-Latin text, and
 * attribute values in live traffic's vocabulary (what enrichment produces).
 *
 * Each visitor's visits are at least 40 minutes apart (each lasts under 35), so they
 * are separate visits under the 30-minute rule.
 */
export interface ExportHistoryOptions {
  siteId: number;
  /** about this many events (whole visitors are added until it is reached) */
  events: number;
  /** first day (UTC) and number of days the visits start in */
  firstDay: string;
  days: number;
  seed: number;
}

export const TRICKY_PATHS = [
  '/',
  '/pricing',
  '/docs/getting-started',
  '/blog/ünïcödé-ページ',
  '/a,b,c',
  '/say-"hi"',
  '/line\nbreak',
  '/emoji-🎉',
  "/it's",
  '/x?y',
];
export const TRICKY_NAMES = ['Signup', 'Download, PDF', 'Say "hi"', 'Multi\nline', 'Café ☕', '注册'];
const HOSTS = ['example.org', 'docs.example.org', 'shop.example.org'];
/** [referrer, source, channel, utm_source, utm_medium, utm_campaign] as live enrichment stores them */
const ACQUISITION: ReadonlyArray<readonly [string, string, string, string, string, string]> = [
  ['', '', 'Direct', '', '', ''],
  ['google.com/', 'Google', 'Organic Search', '', '', ''],
  ['news.ycombinator.com/item', 'Hacker News', 'Organic Social', '', '', ''],
  ['', 'newsletter', 'Email', 'newsletter', 'email', 'spring,sale "2024"'],
  ['t.co/abc', 'Twitter', 'Organic Social', '', '', ''],
  ['', 'bing', 'Paid Search', 'bing', 'cpc', 'brand\nterms'],
];
const CLIENTS: ReadonlyArray<readonly [string, string, string, string, string, string]> = [
  ['Chrome', '124.0', 'Windows', '10', 'Desktop', 'Desktop'],
  ['Safari', '17.4', 'iOS', '17.4.1', 'Mobile', 'Mobile'],
  ['Firefox', '125.0', 'GNU/Linux', '', 'Desktop', 'Laptop'],
  ['Microsoft Edge', '123.0', 'Windows', '11', 'Desktop', 'Laptop'],
  ['Samsung Browser', '24.0', 'Android', '14', 'Tablet', 'Tablet'],
  ['Mobile App', '', 'Android', '13', 'Mobile', ''],
];
const PLACES: ReadonlyArray<readonly [string, string, number]> = [
  ['US', 'US-CA', 5391959],
  ['DE', 'DE-BE', 2950159],
  ['JP', 'JP-13', 1850147],
  ['FR', '', 0],
  ['', '', 0],
];
const PROPS: ReadonlyArray<Record<string, string>> = [{}, { plan: 'pro, annual' }, { note: 'he said "yes"\nthen left', clé: 'välue ✓' }];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)]!;
}

function attributesOf(next: () => number): SessionAttributes {
  const attributes = emptySessionAttributes();
  const [referrer, source, channel, utmSource, utmMedium, utmCampaign] = pick(next, ACQUISITION);
  const [browser, browserVersion, os, osVersion, device, screen] = pick(next, CLIENTS);
  const [country, region, city] = pick(next, PLACES);
  Object.assign(attributes, {
    referrer,
    source,
    channel,
    utm_source: utmSource,
    utm_medium: utmMedium,
    utm_campaign: utmCampaign,
    browser,
    browser_version: browserVersion,
    os,
    os_version: osVersion,
    device,
    screen,
    country,
    region,
    city,
  });
  if (utmSource === 'bing') attributes.click_id = 'msclkid-42';
  return attributes;
}

/** One visitor's events, in time order. */
function visitorEvents(next: () => number, options: ExportHistoryOptions, visitorId: string): SessionEvent[] {
  const dayMs = 86_400_000;
  const firstMs = Date.parse(`${options.firstDay}T00:00:00Z`);
  const visits = 1 + Math.floor(next() * 3);
  const out: SessionEvent[] = [];
  let at = firstMs + Math.floor(next() * (options.days - 1) * dayMs);
  for (let v = 0; v < visits; v += 1) {
    const attributes = attributesOf(next);
    const steps = next() < 0.35 ? 1 : 2 + Math.floor(next() * 7);
    for (let s = 0; s < steps; s += 1) {
      const hostname = s === 0 || next() < 0.8 ? HOSTS[0]! : pick(next, HOSTS);
      const pathname = pick(next, TRICKY_PATHS);
      const custom = s > 0 && next() < 0.15;
      const props = custom ? pick(next, PROPS) : {};
      const base = { site_id: options.siteId, visitor_id: visitorId, marker: '', hostname, pathname, import_id: 0, attributes };
      out.push({
        ...base,
        at,
        name: custom ? pick(next, TRICKY_NAMES) : PAGEVIEW,
        prop_keys: Object.keys(props),
        prop_values: Object.values(props),
        engagement_ms: 0,
        scroll_depth: SCROLL_DEPTH_NONE,
        status_code: custom ? STATUS_CODE_NONE : next() < 0.05 ? 404 : 200,
      });
      const gap = 5_000 + Math.floor(next() * 235_000);
      if (!custom && next() < 0.5)
        out.push({
          ...base,
          at: at + Math.floor(gap / 2),
          name: ENGAGEMENT,
          prop_keys: [],
          prop_values: [],
          engagement_ms: 1 + Math.floor(next() * gap),
          scroll_depth: Math.floor(next() * 101),
          status_code: STATUS_CODE_NONE,
        });
      at += gap;
    }
    at += 40 * 60_000 + Math.floor(next() * dayMs);
  }
  return out;
}

/** Generates and inserts the history; answers what was written. */
export async function insertExportHistory(store: EventStore, options: ExportHistoryOptions): Promise<{ events: number; sessions: number; visitors: number }> {
  const next = random(options.seed);
  let events: EventRow[] = [];
  let sessions: SessionRow[] = [];
  const written = { events: 0, sessions: 0, visitors: 0 };
  const flush = async () => {
    await store.insert('events', events as unknown as Record<string, unknown>[]);
    await store.insert('sessions', sessions as unknown as Record<string, unknown>[]);
    events = [];
    sessions = [];
  };
  while (written.events < options.events) {
    // a 64-bit id like the daily-salted hash (above 2^53)
    const visitorId = (BigInt(Math.floor(next() * 2 ** 31) + 1) * 2n ** 32n + BigInt(Math.floor(next() * 2 ** 32))).toString();
    const rows = sessionizeVisitor(visitorEvents(next, options, visitorId));
    events.push(...rows.eventRows);
    sessions.push(...rows.sessionRows);
    written.events += rows.eventRows.length;
    written.sessions += rows.sessionRows.filter((r) => r.sign === 1 && r.version === 1).length;
    written.visitors += 1;
    if (events.length >= 20_000) await flush();
  }
  if (events.length > 0) await flush();
  return written;
}
