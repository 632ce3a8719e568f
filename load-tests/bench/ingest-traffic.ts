import { readFileSync } from 'node:fs';
import type { SubjectPayloads } from '@sightline/bus';
import { seededRandom as prng } from '@sightline/testkit';

export type CollectedMessage = SubjectPayloads['events.collected.*'];

const FIXTURES = new URL('../../apps/ingest/src/enrich/fixtures/', import.meta.url);
const readCases = (file: string): string[] =>
  (JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as { cases: Array<{ ua: string }> }).cases.map((c) => c.ua);

/** Index into `n` items with a power-law (Zipf, s≈1) popularity: item 0 is the most common. */
function zipf(random: () => number, n: number): number {
  // inverse of the continuous approximation of the harmonic CDF
  return Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n + 1)) - 1));
}

/** A public unicast IPv4 address (no private, loopback, multicast or reserved ranges), so geo spreads over countries. */
function publicIpv4(random: () => number): string {
  for (;;) {
    const a = 1 + Math.floor(random() * 223);
    const b = Math.floor(random() * 256);
    if (a === 10 || a === 127 || a === 100 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || a === 198) continue;
    return `${a}.${b}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`;
  }
}

const REFERRERS: Array<[weight: number, referrer: string | null, query: string]> = [
  [40, null, ''],
  [22, 'https://www.google.com/', ''],
  [4, 'https://www.bing.com/', ''],
  [2, 'https://duckduckgo.com/', ''],
  [5, 'https://t.co/abc123', ''],
  [3, 'https://www.facebook.com/', ''],
  [2, 'https://www.linkedin.com/', ''],
  [2, 'https://news.ycombinator.com/', ''],
  [2, 'https://www.reddit.com/r/webdev/comments/xyz/', ''],
  [2, 'https://chatgpt.com/', ''],
  [1, 'https://www.perplexity.ai/', ''],
  [4, 'https://blog.partner-site.io/posts/analytics-compared', ''],
  [3, null, '?utm_source=newsletter&utm_medium=email&utm_campaign=autumn'],
  [2, 'https://www.google.com/', '?gclid=Cj0KCQ&utm_source=google&utm_medium=cpc&utm_campaign=brand'],
  [2, 'https://github.com/example/repo', ''],
  [4, 'https://www.youtube.com/', ''],
];
const REFERRER_WEIGHT = REFERRERS.reduce((sum, [w]) => sum + w, 0);

const SECTIONS = ['blog', 'docs', 'pricing', 'features', 'changelog', 'guides', 'integrations', 'careers'];
const CUSTOM_EVENTS = ['Signup', 'Download', 'Outbound Link: Click', 'File Download', 'Newsletter'];

/** Common viewport widths (CSS px): phones, tablets, laptops, desktops. */
const VIEWPORT_WIDTHS = [360, 390, 412, 768, 820, 1280, 1366, 1440, 1536, 1920];

export interface TrafficOptions {
  events: number;
  seed: number;
  trackingKey: string;
  /** share of visitors that are bots (dropped by ingest, counted as drops) */
  botShare: number;
  /** the traffic's events fall in the two hours before this instant */
  endAt: number;
}

export interface Traffic {
  messages: CollectedMessage[];
  /** messages ingest must drop (bot visitors) */
  expectedDrops: number;
  sessions: number;
}

/**
 * A realistic day-part of one site's traffic, in arrival (time) order: pages on a
 * power-law, referrers and campaigns, real User-Agents (device-detector fixtures,
 * power-law popularity), IPs spread over the IPv4 space (so over countries), tab
 * markers, visits of 1–20 events, engagement events after half the pageviews, props
 * on custom events. Every event has its own millisecond, so a stored row names its
 * message (latency per event).
 */
export function realisticTraffic(options: TrafficOptions): Traffic {
  const random = prng(options.seed);
  const agents = readCases('user-agents.json');
  const bots = readCases('bots.json');
  const pages = Array.from({ length: 3000 }, (_, i) => (i === 0 ? '/' : `/${SECTIONS[i % SECTIONS.length]}/${(i * 2654435761) % 100_000}-article-${i}`));
  const windowMs = 2 * 3_600_000;
  const startAt = options.endAt - windowMs;
  const out: Array<{ at: number; msg: Omit<CollectedMessage, 'ts'> }> = [];
  let expectedDrops = 0;
  let sessions = 0;
  while (out.length < options.events) {
    sessions += 1;
    const isBot = random() < options.botShare;
    const ua = isBot ? bots[Math.floor(random() * bots.length)]! : agents[zipf(random, agents.length)]!;
    const ip = publicIpv4(random);
    const marker = Math.floor(random() * 2 ** 48).toString(36);
    // the tracker's viewport width (`w`), from the marker: no draw of its own, so the rest of the traffic is as before
    const width = VIEWPORT_WIDTHS[Number.parseInt(marker.slice(-3), 36) % VIEWPORT_WIDTHS.length]!;
    // 1–20 events: many single-page visits, a long tail of deep ones
    const length = Math.min(20, 1 + Math.floor(-Math.log(1 - random()) * 3));
    let at = startAt + Math.floor(random() * (windowMs - 45 * 60_000));
    let [, referrer, query] = REFERRERS[0]!;
    for (let pick = random() * REFERRER_WEIGHT, i = 0; i < REFERRERS.length; i += 1) {
      pick -= REFERRERS[i]![0];
      if (pick < 0) {
        [, referrer, query] = REFERRERS[i]!;
        break;
      }
    }
    for (let i = 0; i < length && out.length < options.events; i += 1) {
      const path = pages[zipf(random, pages.length)]!;
      const base = { k: options.trackingKey, d: 'example.com', ip, ua, s: marker, w: width };
      const custom = i > 0 && random() < 0.08;
      const u = `https://example.com${path}${i === 0 ? query : ''}`;
      if (custom) {
        const name = CUSTOM_EVENTS[zipf(random, CUSTOM_EVENTS.length)]!;
        out.push({
          at,
          msg: { ...base, n: name, u, ...(random() < 0.6 ? { p: { plan: random() < 0.3 ? 'pro' : 'free', position: String(Math.floor(random() * 5)) } } : {}) },
        });
      } else {
        out.push({ at, msg: { ...base, n: 'pageview', u, ...(i === 0 && referrer ? { r: referrer } : {}), ...(random() < 0.01 ? { sc: 404 } : {}) } });
      }
      if (isBot) expectedDrops += 1;
      if (!custom && random() < 0.5 && out.length < options.events) {
        const engagedMs = 1000 + Math.floor(random() * 90_000);
        out.push({ at: at + engagedMs, msg: { ...base, n: 'engagement', u, e: engagedMs, sd: Math.floor(random() * 101) } });
        if (isBot) expectedDrops += 1;
      }
      at += 5_000 + Math.floor(random() * 120_000);
    }
  }
  out.sort((a, b) => a.at - b.at);
  // one millisecond per event: a stored row's timestamp then names its message
  let last = -Infinity;
  const messages = out.map(({ at, msg }) => {
    const unique = Math.max(at, last + 1);
    last = unique;
    return { ...msg, ts: new Date(unique).toISOString() } as CollectedMessage;
  });
  return { messages, expectedDrops, sessions };
}
