import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { Clock } from '@sightline/runtime';
import type { Enricher, GeoInfo, GeoLookup, IngestPorts, SiteContext, SiteResolver, SourceInfo } from '../pipeline/ports.js';

/**
 * TEST fixtures of the pipeline's ports, with real (if simple) behaviour: sites the
 * test declares, a UA parser and bot list from npm, geo from a table. Never used by
 * production code (wiring.ts plugs the real ones).
 */
export function site(overrides: Partial<SiteContext> & { site_id: number }): SiteContext {
  return {
    account_id: 1, domain: 'example.com', timezone: 'UTC', tracking_active: true,
    hostnames: { allowed: [], blocked: [] }, blocked_ips: [], countries: { allowed: [], blocked: [] }, ...overrides,
  };
}

export function mapSiteResolver(sites: Record<string, SiteContext>): SiteResolver {
  return { resolve: async (key) => sites[key] ?? null };
}

export function tableGeo(table: Record<string, GeoInfo>): GeoLookup {
  return { lookup: (ip) => table[ip] ?? { country: '', region: '', city: 0 } };
}

const SPAM = new Set(['spam-referrer.example']);

export const fixtureEnricher: Enricher = {
  parseUserAgent(ua) {
    const r = new UAParser(ua).getResult();
    return {
      browser: r.browser.name ?? '', browser_version: (r.browser.version ?? '').split('.').slice(0, 2).join('.'),
      os: r.os.name ?? '', os_version: '', device: r.device.type === 'mobile' ? 'Mobile' : r.device.type === 'tablet' ? 'Tablet' : 'Desktop',
    };
  },
  detectBot: (ua) => (isbot(ua) ? { bot: true, category: /googlebot|bingbot/i.test(ua) ? 'search' : 'other' } : { bot: false, category: '' }),
  isReferrerSpam: (host) => SPAM.has(host),
  parsePage(url) {
    try {
      const u = new URL(url);
      return { hostname: u.hostname, pathname: u.pathname };
    } catch {
      return null;
    }
  },
  resolveSource({ referrer, pageUrl, pageHost }): SourceInfo {
    const q = new URL(pageUrl).searchParams;
    let host = '';
    try {
      host = referrer ? new URL(referrer).hostname.replace(/^www\./, '') : '';
    } catch {
      host = '';
    }
    if (host === pageHost) host = '';
    return {
      source: q.get('utm_source') ?? host, referrer: host ? referrer : '',
      utm_source: q.get('utm_source') ?? '', utm_medium: q.get('utm_medium') ?? '', utm_campaign: q.get('utm_campaign') ?? '',
      utm_content: q.get('utm_content') ?? '', utm_term: q.get('utm_term') ?? '', click_id: '',
    };
  },
  classifyChannel: (s) => (s.source === '' ? 'Direct' : 'Referral'),
};

export function fixturePorts(sites: Record<string, SiteContext>, geo: Record<string, GeoInfo>, clock: Clock): IngestPorts {
  return { sites: mapSiteResolver(sites), enricher: fixtureEnricher, geo: tableGeo(geo), clock };
}
