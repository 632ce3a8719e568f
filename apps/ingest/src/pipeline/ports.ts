import type { Clock } from '@sightline/runtime';
import type { PageInfo } from '../enrich/page.js';
import type { SourceInfo } from '../enrich/source.js';
import type { UserAgentInfo } from '../enrich/user-agent.js';

// The enrichment steps' own result types: one definition, in the step that makes them.
export type { PageInfo, SourceInfo, UserAgentInfo };

/**
 * What the pipeline needs from the outside world, as small interfaces. The real
 * implementations (libs/site-context, libs/geo, apps/ingest/src/enrich) are plugged
 * in one place, `wiring.ts`; tests plug fixtures with real behaviour.
 */

/** A tracked site as the pipeline needs it (libs/site-context's TrackedSite, whose fields it reads); null from the resolver = unknown or deleted. */
export interface TrackedSite {
  site_id: number;
  account_id: number;
  domain: string;
  timezone: string;
  tracking_active: boolean;
  hostnames: { allowed: readonly string[]; blocked: readonly string[] };
  /** single addresses or CIDR ranges, IPv4 or IPv6 */
  blocked_ips: readonly string[];
  countries: { allowed: readonly string[]; blocked: readonly string[] };
}

export interface SiteResolver {
  /** The site of a tracking key; null when no (live) site has it. */
  resolve(trackingKey: string): Promise<TrackedSite | null>;
}

export interface BotVerdict {
  bot: boolean;
  /** crawler category (search, ai, seo, monitoring, preview, http_client, headless…); '' when not a bot */
  category: string;
}

/** Pure enrichment functions (apps/ingest/src/enrich). */
export interface Enricher {
  parseUserAgent(ua: string): UserAgentInfo;
  detectBot(ua: string): BotVerdict;
  /** referrer host on the spam list */
  isReferrerSpam(host: string): boolean;
  /** null when the URL cannot be parsed */
  parsePage(url: string, options: { hashRouting: boolean }): PageInfo | null;
  resolveSource(input: { referrer: string; pageUrl: string; pageHost: string }): SourceInfo;
  classifyChannel(input: SourceInfo): string;
}

export interface GeoInfo {
  /** ISO 3166-1 alpha-2, '' when unknown */
  country: string;
  /** ISO 3166-2, '' when unknown */
  region: string;
  /** GeoNames id, 0 when unknown */
  city: number;
}

export interface GeoLookup {
  lookup(ip: string): GeoInfo;
}

export interface IngestPorts {
  sites: SiteResolver;
  enricher: Enricher;
  geo: GeoLookup;
  clock: Clock;
}
