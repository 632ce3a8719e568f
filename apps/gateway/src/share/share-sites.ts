import type { FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, settingsV1, sitesV1 } from '@sightline/proto';
import { callOptions } from '../edge/request-context.js';
import type { PlanState } from '../caches/report-context-cache.js';
import type { ReportSite } from '../reports/report-queries.js';

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

interface Known {
  /** undefined: the hash names a site whose public dashboard is off */
  shared: SharedSite | undefined;
  siteId: number;
  ownerAccountId: number;
  at: number;
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
  private readonly known = new Map<string, Known>();
  private readonly flights = new Map<string, Promise<Known>>();
  /** bumped by every piece of news: a lookup that started before it keeps nothing */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxEntries = 10_000,
  ) {}

  /** The shared site, or 404 `unknown_site` (no such hash, or its public dashboard is off). */
  async resolve(hash: string, loaders: ShareLoaders): Promise<SharedSite> {
    const entry = this.known.get(hash);
    const known = entry && this.now() - entry.at < this.ttlMs ? entry : await this.load(hash, loaders);
    if (!known.shared) throw unknownShare();
    return known.shared;
  }

  forgetSite(siteId: number): void {
    this.generation += 1;
    for (const [hash, entry] of this.known) if (entry.siteId === siteId) this.known.delete(hash);
  }

  forgetAccount(accountId: number): void {
    this.generation += 1;
    for (const [hash, entry] of this.known) if (entry.ownerAccountId === accountId) this.known.delete(hash);
  }

  private load(hash: string, loaders: ShareLoaders): Promise<Known> {
    let flight = this.flights.get(hash);
    if (!flight) {
      flight = this.fetch(hash, loaders).finally(() => this.flights.delete(hash));
      this.flights.set(hash, flight);
    }
    return flight;
  }

  private async fetch(hash: string, loaders: ShareLoaders): Promise<Known> {
    const generation = this.generation;
    const { site, goals } = await loaders.siteByHash(hash).catch((error: unknown) => {
      // the sites service's own wording would tell a missing hash from a closed dashboard
      throw isApiError(error) && error.code === 'unknown_site' ? unknownShare() : error;
    });
    if (!site) throw unknownShare();
    const plan = await loaders.getPlan(site.ownerAccountId);
    const open = await loaders.publicDashboard(site.siteId, site.hobby, plan.paid);
    const shared: SharedSite | undefined = open
      ? {
          site: { siteId: site.siteId, timezone: site.timezone, weekStart: site.weekStart, goals: goals.map((g) => ({ displayName: g.displayName, eventName: g.eventName, pagePath: g.pagePath })) },
          domain: domainOf(site.name),
          ownerAccountId: site.ownerAccountId,
          plan: { reportsOpen: plan.reportsOpen, trackingActive: plan.trackingActive },
        }
      : undefined;
    const known: Known = { shared, siteId: site.siteId, ownerAccountId: site.ownerAccountId, at: this.now() };
    if (generation === this.generation) {
      if (this.known.size >= this.maxEntries) this.known.delete(this.known.keys().next().value!);
      this.known.set(hash, known);
    }
    return known;
  }
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
      publicDashboard: async (siteId, hobby, paid) => (await callUnary(settings, settings.getPublicDashboard, 'Settings/GetPublicDashboard', { siteId, siteHobby: hobby, accountPaid: paid }, options)).enabled,
    });
  };
}
