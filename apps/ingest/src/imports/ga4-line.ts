/**
 * One row of a GA4 BigQuery export (events_YYYYMMDD, exported as newline-delimited
 * JSON; INT64 values arrive as JSON strings) → the `sightline` import shape.
 * Schema: https://support.google.com/analytics/answer/7029846
 *
 * - event_timestamp (µs since the epoch) → timestamp; user_pseudo_id → visitor_id
 * - page_view → pageview; user_engagement → engagement (engagement_time_msec);
 *   scroll → engagement with scroll depth 90 (GA4 fires it at 90 %); GA4's own
 *   bookkeeping events (session_start, first_visit) are not events of a visit and are
 *   rejected with that reason; every other name is a custom event whose
 *   event_params (minus GA4's standard ones) become its props
 * - event_params.page_location → hostname + pathname (+ utm_* and click id from its
 *   query); page_referrer → referrer. ga_session_id is not used: sessions are
 *   rebuilt by Sightline's sessionizer (30-minute rule), like live traffic
 * - collected_traffic_source.manual_*, else the page URL's utm_* → utm_*; gclid → click_id;
 *   traffic_source.* (the user's FIRST acquisition) only for a hit with no referrer and no utm
 * - device.category / operating_system(_version) / web_info.browser(_version) → device,
 *   os, browser (names normalised as for live traffic)
 * - geo.country / region / city names → ISO codes and GeoNames ids with the same
 *   data as IP geolocation (libs/geo); an unknown name is left empty
 */
import { ENGAGEMENT, PAGEVIEW } from '@sightline/events-schema';
import { cityIdByName, countryCodeByName, regionCodeByName } from '@sightline/geo';
import { parsePage } from '../enrich/page.js';
import { resolveSource } from '../enrich/source.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
/** GA4 placeholders that mean "nothing". */
const NOTHING = new Set(['(direct)', '(none)', '(not set)', '(data deleted)', '(organic)', '(referral)']);
const value = (v: unknown): string => {
  const s = str(v).trim();
  return NOTHING.has(s) ? '' : s;
};

/** GA4's automatic parameters: carried by every event, they are not the custom event's props. */
const STANDARD_PARAMS = new Set([
  'page_location',
  'page_referrer',
  'page_title',
  'ga_session_id',
  'ga_session_number',
  'engagement_time_msec',
  'session_engaged',
  'engaged_session_event',
  'entrances',
  'ignore_referrer',
  'batch_event_index',
  'batch_ordering_id',
  'batch_page_id',
  'debug_mode',
  'percent_scrolled',
  'synthetic_bundle',
  'term',
  'medium',
  'source',
  'campaign',
]);
const BOOKKEEPING_EVENTS = new Set(['session_start', 'first_visit', 'first_open', 'app_remove', 'os_update']);

type ParamValue = string | number;

function paramsOf(row: Json): Map<string, ParamValue> {
  const params = new Map<string, ParamValue>();
  const list = Array.isArray(row.event_params) ? row.event_params : [];
  for (const entry of list.slice(0, 200)) {
    const e = obj(entry);
    const key = str(e.key);
    const v = obj(e.value);
    if (!key) continue;
    if (typeof v.string_value === 'string') params.set(key, v.string_value);
    else if (v.int_value !== undefined && v.int_value !== null) params.set(key, Number(v.int_value));
    else if (v.double_value !== undefined && v.double_value !== null) params.set(key, Number(v.double_value));
    else if (v.float_value !== undefined && v.float_value !== null) params.set(key, Number(v.float_value));
  }
  return params;
}

export type Ga4Mapped = { ok: true; row: Json } | { ok: false; reason: string };

/** Maps one parsed GA4 export object to an object the `sightline` ImportRow schema then validates. */
export function mapGa4Row(row: Json): Ga4Mapped {
  const eventName = str(row.event_name);
  if (!eventName) return { ok: false, reason: 'event_name is missing' };
  if (BOOKKEEPING_EVENTS.has(eventName)) return { ok: false, reason: `GA4 bookkeeping event ${eventName} is not imported (Sightline builds sessions itself)` };
  const micros = Number(str(row.event_timestamp));
  if (!Number.isFinite(micros) || micros <= 0) return { ok: false, reason: 'event_timestamp must be microseconds since the epoch' };
  const visitor = str(row.user_pseudo_id);
  if (!visitor) return { ok: false, reason: 'user_pseudo_id is missing' };
  const params = paramsOf(row);
  const location = str(params.get('page_location'));
  const page = location ? parsePage(location, { hashRouting: false }) : null;
  if (!page) return { ok: false, reason: 'event_params.page_location is missing or not an http(s) URL' };

  let name = eventName;
  let engagementMs: number | null = null;
  let scrollDepth: number | null = null;
  const props: Record<string, ParamValue> = {};
  if (eventName === 'page_view') name = PAGEVIEW;
  else if (eventName === 'user_engagement') {
    name = ENGAGEMENT;
    const engaged = Number(params.get('engagement_time_msec') ?? 0);
    engagementMs = Number.isFinite(engaged) ? Math.min(Math.max(Math.round(engaged), 0), 86_400_000) : 0;
  } else if (eventName === 'scroll') {
    name = ENGAGEMENT;
    scrollDepth = 90;
    engagementMs = 0;
  } else {
    for (const [key, v] of params) {
      if (STANDARD_PARAMS.has(key) || Object.keys(props).length >= 30) continue;
      props[key.slice(0, 64)] = typeof v === 'string' ? v.slice(0, 256) : v;
    }
  }

  const referrerUrl = str(params.get('page_referrer'));
  const fromUrl = resolveSource({ referrer: referrerUrl || undefined, pageUrl: location, pageHost: page.hostname });
  const collected = obj(row.collected_traffic_source);
  const traffic = obj(row.traffic_source);
  const device = obj(row.device);
  const web = obj(device.web_info);
  const geo = obj(row.geo);
  const country = countryCodeByName(value(geo.country)) ?? '';
  const region = country ? (regionCodeByName(country, value(geo.region)) ?? '') : '';
  const city = country ? (cityIdByName(country, value(geo.city), region || undefined) ?? null) : null;
  // traffic_source is the USER's first acquisition, not this visit's: only a fallback for a hit that says nothing itself
  const fallback = referrerUrl === '' && !value(collected.manual_source) && !fromUrl.utm_source ? traffic : {};
  const utmSource = value(collected.manual_source) || fromUrl.utm_source || value(fallback.source);
  const utmMedium = value(collected.manual_medium) || fromUrl.utm_medium || value(fallback.medium);
  return {
    ok: true,
    row: {
      timestamp: new Date(Math.floor(micros / 1000)).toISOString(),
      name,
      visitor_id: visitor.slice(0, 128),
      hostname: page.hostname,
      pathname: page.pathname,
      // the referrer as a URL: normaliseRow stores it like live traffic's
      referrer: referrerUrl.slice(0, 2048),
      utm_source: utmSource.slice(0, 256),
      utm_medium: utmMedium.slice(0, 256),
      utm_campaign: (value(collected.manual_campaign_name) || fromUrl.utm_campaign || value(fallback.name)).slice(0, 256),
      utm_content: (value(collected.manual_content) || fromUrl.utm_content).slice(0, 256),
      utm_term: (value(collected.manual_term) || fromUrl.utm_term).slice(0, 256),
      click_id: value(collected.gclid) ? 'gclid' : fromUrl.click_id,
      country,
      region,
      city,
      browser: value(web.browser).slice(0, 64),
      browser_version: value(web.browser_version).slice(0, 32),
      os: value(device.operating_system).slice(0, 64),
      os_version: value(device.operating_system_version).slice(0, 32),
      device: value(device.category).slice(0, 32),
      props,
      engagement_ms: engagementMs,
      scroll_depth: scrollDepth,
    },
  };
}
