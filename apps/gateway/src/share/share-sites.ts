import type { FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, settingsV1, sitesV1 } from '@sightline/proto';
import { callOptions } from '../edge/request-context.js';
import type { PlanState } from '../caches/report-context-cache.js';
import type { ReportSite } from '../reports/report-queries.js';
import { SiteLookupCache, type SiteLookup } from '../caches/site-lookup-cache.js';

/** A site reached by its share hash while its public dashboard is on. */
export interface SharedSite {
  site: ReportSite;
  /** the host the site counts (its name without the scheme), what the page shows */
  domain: string;
  ownerAccountId: number;
  plan: PlanState;
}

/** The live calls behind the resolver (gRPC calls bound to the request). */
export interface ShareLoaders {
  /** Sites/GetSiteByHash: `unknown_site` for no such hash */
  siteByHash: (hash: string) => Promise<sitesV1.SiteWithGoals>;
  getPlan: (accountId: number) => Promise<Pick<identityV1.PlanState, 'paid' | 'reportsOpen' | 'trackingActive'>>;
  /** Settings/GetPublicDashboard (hobby sites of unpaid accounts are always public) */
  publicDashboard: (siteId: number, hobby: boolean, paid: boolean) => Promise<boolean>;
}

/** The one refusal for a hash that names nothing and for one whose dashboard is off: nobody learns which. */
export function unknownShare(): ApiError {
  return new ApiError('unknown_site', 'No public dashboard at this address.');
}

/**
 * Share hash → site, goals, plan, public flag; per gateway replica. A hash's answer is
 * kept for `ttlMs` (REPORT_CACHE_TTL_MS) and dropped at once by news — site updated or
 * deleted, settings changed (the public flag among them), report access or plan changed —
 * so turning the dashboard off closes it within one bus delivery. Hashes that name no site
 * are not kept (the per-IP rate limit bounds guessing); identical lookups arriving
 * together run once.
 */
export class ShareSites {
  private readonly lookups: SiteLookupCache<SharedSite | undefined>;

  constructor(ttlMs: number, now?: () => number, maxEntries?: number) {
    this.lookups = new SiteLookupCache(ttlMs, now, maxEntries);
  }

  /** The shared site, or 404 `unknown_site` (no such hash, or its public dashboard is off). */
  async resolve(hash: string, loaders: ShareLoaders): Promise<SharedSite> {
    const shared = await this.lookups.resolve(hash, () => fetchShared(hash, loaders));
    if (!shared) throw unknownShare();
    return shared;
  }

  forgetSite(siteId: number): void {
    this.lookups.forgetSite(siteId);
  }

  forgetAccount(accountId: number): void {
    this.lookups.forgetAccount(accountId);
  }
}

/** undefined: the hash names a site whose public dashboard is off */
async function fetchShared(hash: string, loaders: ShareLoaders): Promise<SiteLookup<SharedSite | undefined>> {
  const { site, goals } = await loaders.siteByHash(hash).catch((error: unknown) => {
    // the sites service's own wording would tell a missing hash from a closed dashboard
    throw isApiError(error) && error.code === 'unknown_site' ? unknownShare() : error;
  });
  if (!site) throw unknownShare();
  const plan = await loaders.getPlan(site.ownerAccountId);
  const open = await loaders.publicDashboard(site.siteId, site.hobby, plan.paid);
  const shared: SharedSite | undefined = open
    ? {
        site: {
          siteId: site.siteId,
          timezone: site.timezone,
          weekStart: site.weekStart,
          goals: goals.map((g) => ({ displayName: g.displayName, eventName: g.eventName, pagePath: g.pagePath })),
        },
        domain: domainOf(site.name),
        ownerAccountId: site.ownerAccountId,
        plan: { reportsOpen: plan.reportsOpen, trackingActive: plan.trackingActive },
      }
    : undefined;
  return { value: shared, siteId: site.siteId, ownerAccountId: site.ownerAccountId };
}

/** `https://example.com:8443` → `example.com:8443`; a name that is no URL stays as it is. */
function domainOf(name: string): string {
  try {
    return new URL(name).host || name;
  } catch {
    return name;
  }
}

export interface ShareLookupOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  settings: settingsV1.SettingsServiceClient;
  deadlineMs: number;
  cache: ShareSites;
}

/** Resolves a hash for a request (the share API and the share page alike). */
export type ShareLookup = (request: FastifyRequest, hash: string) => Promise<SharedSite>;

export function shareLookup({ sites, identity, settings, deadlineMs, cache }: ShareLookupOptions): ShareLookup {
  return (request, hash) => {
    const options = callOptions(request, deadlineMs);
    return cache.resolve(hash, {
      siteByHash: (h) => callUnary(sites, sites.getSiteByHash, 'Sites/GetSiteByHash', { hash: h }, options),
      getPlan: (accountId) => callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId }, options),
      publicDashboard: async (siteId, hobby, paid) =>
        (await callUnary(settings, settings.getPublicDashboard, 'Settings/GetPublicDashboard', { siteId, siteHobby: hobby, accountPaid: paid }, options))
          .enabled,
    });
  };
}
