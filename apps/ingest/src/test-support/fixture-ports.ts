import type { Clock } from '@sightline/runtime';
import type { GeoInfo, IngestPorts, TrackedSite, SiteResolver } from '../pipeline/ports.js';
import { createEnricher } from '../enrich/enricher.js';
import { tableGeo } from '../table-geo.js';

/**
 * TEST fixtures of the pipeline's ports: sites the test declares and geo from a
 * table (so expectations do not move with the DB-IP data); enrichment is the real
 * one. Never used by production code (wiring.ts plugs the real ones).
 */
export function site(overrides: Partial<TrackedSite> & { site_id: number }): TrackedSite {
  return {
    account_id: 1,
    domain: 'example.com',
    timezone: 'UTC',
    tracking_active: true,
    hostnames: { allowed: [], blocked: [] },
    blocked_ips: [],
    countries: { allowed: [], blocked: [] },
    ...overrides,
  };
}

export function mapSiteResolver(sites: Record<string, TrackedSite>): SiteResolver {
  return { resolve: async (key) => sites[key] ?? null };
}

export function fixturePorts(sites: Record<string, TrackedSite>, geo: Record<string, GeoInfo>, clock: Clock): IngestPorts {
  return { sites: mapSiteResolver(sites), enricher: createEnricher(), geo: tableGeo(geo), clock };
}
