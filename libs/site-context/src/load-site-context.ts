import { randomUUID } from 'node:crypto';
import { isApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { ServiceClients } from '@sightline/service-clients';
import type { TrackedSite } from './tracked-site.js';

export type SiteContextClients = Pick<ServiceClients, 'sites' | 'settings' | 'identity'>;

/**
 * Asks the three owners for a site's context: sites (the key → the site), then
 * settings (its counting filters) and identity (its owner's plan) together. Null when
 * no site has this key (never had, or deleted); any other failure is thrown (the
 * caller retries; nothing is cached). `onSite` reports the site id as soon as it is
 * known, so an invalidation arriving mid-load can tell it concerns this load.
 */
export async function loadSiteContext(
  clients: SiteContextClients,
  trackingKey: string,
  deadlineMs: number,
  onSite: (siteId: number) => void = () => {},
): Promise<TrackedSite | null> {
  const options = { requestId: `sitectx_${randomUUID()}`, deadlineMs };
  const { sites, settings, identity } = clients;
  let site;
  try {
    site = await callUnary(sites, sites.getSiteByTrackingKey, 'Sites/GetSiteByTrackingKey', { trackingKey }, options);
  } catch (error) {
    if (isApiError(error) && error.code === 'unknown_site') return null;
    throw error;
  }
  onSite(site.siteId);
  const [filters, plan] = await Promise.all([
    callUnary(settings, settings.getCountingFilters, 'Settings/GetCountingFilters', { siteId: site.siteId }, options),
    callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId: site.ownerAccountId }, options),
  ]);
  return {
    site_id: site.siteId,
    account_id: site.ownerAccountId,
    domain: new URL(site.name).hostname,
    timezone: site.timezone,
    week_start: site.weekStart,
    tracking_active: plan.trackingActive,
    hostnames: { allowed: filters.allowedHostnames, blocked: filters.blockedHostnames },
    blocked_ips: filters.blockedIps,
    countries: { allowed: filters.allowedCountries, blocked: filters.blockedCountries },
  };
}
