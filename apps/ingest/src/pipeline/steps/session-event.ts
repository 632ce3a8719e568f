import { CITY_NONE, LIVE_IMPORT_ID, SCROLL_DEPTH_NONE, screenClass, STATUS_CODE_NONE, type CollectedEvent } from '@sightline/events-schema';
import type { SessionEvent } from '../../sessions/session-event.js';
import type { Enricher, GeoInfo, PageInfo, TrackedSite } from '../ports.js';

/**
 * Last step: the source, channel and device of a counted event, and the session event
 * the sessionizer takes (`visitor_id` '' until the pipeline identifies the visitor).
 *
 * Per event, so written for the engine: the attributes listed field by field — an
 * object spread or rest into a literal with other fields is a runtime call per event
 * and leaves a slower object shape (the rows are serialised later).
 */
export function sessionEvent(msg: CollectedEvent, site: TrackedSite, page: PageInfo, geo: GeoInfo, at: Date, enricher: Enricher): SessionEvent {
  const ua = enricher.parseUserAgent(msg.ua);
  const source = enricher.resolveSource({ referrer: msg.r ?? '', pageUrl: msg.u, pageHost: page.hostname });
  const channel = enricher.classifyChannel(source);
  const propKeys: string[] = [];
  const propValues: string[] = [];
  if (msg.p) {
    for (const key in msg.p) {
      propKeys.push(key);
      propValues.push(String(msg.p[key]));
    }
  }
  return {
    site_id: site.site_id,
    at: at.getTime(),
    name: msg.n,
    visitor_id: '',
    marker: msg.s ?? '',
    hostname: page.hostname,
    pathname: page.pathname,
    prop_keys: propKeys,
    prop_values: propValues,
    engagement_ms: msg.e ?? 0,
    scroll_depth: msg.sd ?? SCROLL_DEPTH_NONE,
    status_code: msg.sc ?? STATUS_CODE_NONE,
    import_id: LIVE_IMPORT_ID,
    // referrer_host only feeds channel classification; it is not a stored column
    attributes: {
      referrer: source.referrer,
      source: source.source,
      channel,
      utm_source: source.utm_source,
      utm_medium: source.utm_medium,
      utm_campaign: source.utm_campaign,
      utm_content: source.utm_content,
      utm_term: source.utm_term,
      click_id: source.click_id,
      country: geo.country,
      region: geo.region,
      city: geo.city || CITY_NONE,
      browser: ua.browser,
      browser_version: ua.browser_version,
      os: ua.os,
      os_version: ua.os_version,
      device: ua.device,
      screen: screenClass(msg.w),
    },
  };
}
