import type { EventStore } from '@sightline/event-store';

/**
 * The query bench's data set, generated inside the events store (INSERT … SELECT;
 * building 10M rows in JavaScript would take longer than the bench itself).
 *
 * Seeded: every random choice is `cityHash64(seed, session number, slot)`, so the
 * same seed and size give the same rows, and the events and sessions inserts (two
 * passes over the same generator) agree row for row.
 *
 * Shape (per session): a site (60/20/10/6/4 % over the given sites), a visitor (from a
 * per-site pool, mildly skewed), a start uniform over the `days` before `endMs`,
 * 1–12 non-engagement events 5–300 s apart (40 % single-event sessions), each
 * pageview possibly followed by an engagement event (60 %, at most 8), so 1–20 events.
 * Pages, sources and countries are Zipf-distributed (rank k has weight 1/(k+1)), like
 * real traffic; 3 % of later events are the custom event `Signup`, 2 % `Download`.
 * Sessions are written as one final version (sign +1): what merged data looks like.
 */
export interface QueryDataOptions {
  siteIds: readonly number[];
  events: number;
  days: number;
  endMs: number;
  seed: number;
}

const SOURCES = [
  '',
  'Google',
  'Bing',
  'DuckDuckGo',
  'Twitter',
  'Facebook',
  'Reddit',
  'Hacker News',
  'GitHub',
  'Newsletter',
  'LinkedIn',
  'YouTube',
  'Ecosia',
  'Yahoo',
  'Mastodon',
  'Stack Overflow',
  'Product Hunt',
  'Baidu',
  'Yandex',
  'Instagram',
];
const CHANNELS = [
  'Direct',
  'Organic Search',
  'Organic Search',
  'Organic Search',
  'Organic Social',
  'Organic Social',
  'Organic Social',
  'Referral',
  'Referral',
  'Email',
  'Organic Social',
  'Organic Video',
  'Organic Search',
  'Organic Search',
  'Organic Social',
  'Referral',
  'Referral',
  'Organic Search',
  'Organic Search',
  'Organic Social',
];
const COUNTRIES = [
  'US',
  'DE',
  'GB',
  'FR',
  'IN',
  'CA',
  'NL',
  'JP',
  'BR',
  'ES',
  'IT',
  'PL',
  'SE',
  'AU',
  'CH',
  'AT',
  'BE',
  'DK',
  'FI',
  'NO',
  'KR',
  'MX',
  'CZ',
  'PT',
  'IE',
  'NZ',
  'SG',
  'ZA',
  'AR',
  'TR',
];
const PAGES = 500;

const list = (values: readonly string[]) => `[${values.map((v) => `'${v.replace(/'/g, "\\'")}'`).join(', ')}]`;

/** One row per session with the arrays its events are unrolled from. */
function sessionsSource(options: QueryDataOptions, first: number, count: number): string {
  const u = (slot: string) => `(cityHash64(${options.seed}, number, ${slot}) / 18446744073709551616.)`;
  const zipf = (slot: string, n: number) => `least(${n - 1}, toUInt32(floor(exp(${u(slot)} * log(${n + 1})))) - 1)`;
  const spanS = options.days * 86_400;
  const startS = Math.floor(options.endMs / 1000) - spanS;
  const sites = options.siteIds;
  const siteOf = `multiIf(${u('1')} < 0.6, ${sites[0]}, ${u('1')} < 0.8, ${sites[1 % sites.length]}, ${u('1')} < 0.9, ${sites[2 % sites.length]}, ${u('1')} < 0.96, ${sites[3 % sites.length]}, ${sites[4 % sites.length]})`;
  const page = (slot: string) =>
    `if(${zipf(slot, PAGES)} = 0, '/', concat(${list(['/blog/', '/docs/', '/pricing/', '/product/'])}[${zipf(slot, PAGES)} % 4 + 1], toString(${zipf(slot, PAGES)})))`;
  return `SELECT number AS n, ${siteOf} AS site_id, site_id * 1000000000 + toUInt64(pow(${u('2')}, 1.5) * ${Math.max(1, Math.floor(options.events / 10))}) AS visitor_id,
      fromUnixTimestamp64Milli(toInt64((${startS} + toUInt64(${u('3')} * ${spanS - 3600})) * 1000 + cityHash64(${options.seed}, number, 4) % 1000), 'UTC') AS start,
      if(${u('5')} < 0.4, 1, 2 + toUInt32(floor(pow(${u('6')}, 2.5) * 11))) AS len,
      arrayMap(i -> toUInt32(5 + cityHash64(${options.seed}, number, 100 + i) % 296), range(len)) AS gaps,
      arrayPushFront(arrayPopBack(arrayCumSum(gaps)), 0) AS offsets,
      arrayMap(i -> if(i = 0, 'pageview', multiIf(cityHash64(${options.seed}, number, 200 + i) % 100 < 3, 'Signup', cityHash64(${options.seed}, number, 200 + i) % 100 < 5, 'Download', 'pageview')), range(len)) AS names,
      arrayMap(i -> ${page('300 + i')}, range(len)) AS pages,
      arrayMap(i -> names[i + 1] = 'pageview' AND i < 8 AND cityHash64(${options.seed}, number, 400 + i) % 100 < 60, range(len)) AS engaged,
      arrayMap(i -> toUInt32(gaps[i + 1] * 500 - cityHash64(${options.seed}, number, 500 + i) % 1000), range(len)) AS engaged_ms,
      arrayFilter(p -> p != '', arrayMap((p, nm) -> if(nm = 'pageview', p, ''), pages, names)) AS viewed,
      ${zipf('7', SOURCES.length)} AS source_rank,
      ${list(SOURCES)}[source_rank + 1] AS source, ${list(CHANNELS)}[source_rank + 1] AS channel,
      if(source = '', '', concat('https://', lower(replaceAll(source, ' ', '')), '.com/')) AS referrer,
      ${list(COUNTRIES)}[${zipf('8', COUNTRIES.length)} + 1] AS country,
      multiIf(${u('9')} < 0.62, 'Chrome', ${u('9')} < 0.82, 'Safari', ${u('9')} < 0.9, 'Firefox', ${u('9')} < 0.96, 'Edge', 'Samsung Internet') AS browser,
      multiIf(${u('10')} < 0.55, 'Desktop', ${u('10')} < 0.95, 'Mobile', 'Tablet') AS device,
      multiIf(device = 'Desktop', if(${u('11')} < 0.7, 'Windows', if(${u('11')} < 0.9, 'Mac', 'GNU/Linux')), if(${u('11')} < 0.6, 'Android', 'iOS')) AS os,
      concat('site', toString(site_id), '.example') AS hostname
    FROM numbers(${first}, ${count})`;
}

const ATTRIBUTE_COLUMNS = 'hostname, referrer, source, channel, country, browser, os, device';

async function insertSessions(store: EventStore, options: QueryDataOptions, first: number, count: number): Promise<void> {
  const source = sessionsSource(options, first, count);
  await store.command(`INSERT INTO events (site_id, timestamp, name, visitor_id, session_id, pathname, engagement_ms, scroll_depth, status_code, ${ATTRIBUTE_COLUMNS})
    SELECT site_id, start + toIntervalMillisecond(e.1), e.2, visitor_id, n, e.3, e.4, e.5, e.6, ${ATTRIBUTE_COLUMNS}
    FROM (${source})
    ARRAY JOIN arrayConcat(
      arrayMap(i -> (toInt64(offsets[i + 1]) * 1000, names[i + 1], pages[i + 1], toUInt32(0), toUInt8(255), toUInt16(if(names[i + 1] = 'pageview', 200, 0))), range(len)),
      arrayMap(i -> (toInt64(offsets[i + 1]) * 1000 + gaps[i + 1] * 500, 'engagement', pages[i + 1], engaged_ms[i + 1], toUInt8(cityHash64(${options.seed}, n, 600 + i) % 101), toUInt16(0)), arrayFilter(i -> engaged[i + 1], range(len)))
    ) AS e`);
  await store.command(`INSERT INTO sessions (site_id, session_id, visitor_id, sign, version, start, timestamp, entry_page, exit_page, pageviews, events, is_bounce, duration, engagement_ms, ${ATTRIBUTE_COLUMNS})
    SELECT site_id, n, visitor_id, 1, len, start, start + toIntervalSecond(offsets[len]), viewed[1], viewed[-1], length(viewed), len, len < 2, offsets[len],
      arraySum(arrayMap((x, ms) -> if(x, ms, 0), engaged, engaged_ms)), ${ATTRIBUTE_COLUMNS}
    FROM (${source})`);
}

/** Mean events per session of the generator, from a sample (sizes the session count). */
async function eventsPerSession(store: EventStore, options: QueryDataOptions): Promise<number> {
  const [row] = await store.query<{ mean: number }>(
    `SELECT avg(len + length(arrayFilter(x -> x, engaged))) AS mean FROM (${sessionsSource(options, 0, 100_000)})`,
  );
  return Number(row!.mean);
}

/** Generates about `events` events (and their sessions); answers the exact counts. */
export async function generateQueryData(store: EventStore, options: QueryDataOptions): Promise<{ events: number; sessions: number }> {
  const sessions = Math.round(options.events / (await eventsPerSession(store, options)));
  const chunk = 250_000; // sessions per insert: bounded memory
  for (let first = 0; first < sessions; first += chunk) await insertSessions(store, options, first, Math.min(chunk, sessions - first));
  // what background merges reach on a live store; keeps figures independent of when merges ran
  await store.command('OPTIMIZE TABLE events FINAL');
  await store.command('OPTIMIZE TABLE sessions FINAL');
  const [counted] = await store.query<{ events: number }>('SELECT count() AS events FROM events');
  return { events: Number(counted!.events), sessions };
}
