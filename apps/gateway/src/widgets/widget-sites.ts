import { createHash } from 'node:crypto';
import { ApiError, isApiError } from '@sightline/errors';
import type { identityV1, sitesV1 } from '@sightline/proto';
import type { PlanState } from '../caches/report-context-cache.js';
import type { ReportSite } from '../reports/report-queries.js';
import { SiteLookupCache, type SiteLookup } from '../caches/site-lookup-cache.js';

/** A site reached by its widget key. */
export interface WidgetSite {
  site: ReportSite;
  ownerAccountId: number;
  plan: PlanState;
}

/** The live calls behind the resolver (gRPC calls bound to the request). */
export interface WidgetSiteLoaders {
  /** Sites/GetSiteByWidgetKey: `unknown_site` for a key that names nothing (now) */
  siteByKey: (key: string) => Promise<sitesV1.Site>;
  getPlan: (accountId: number) => Promise<Pick<identityV1.PlanState, 'reportsOpen' | 'trackingActive'>>;
}

/** One refusal for a malformed, rotated or unknown key and a deleted site. */
export function unknownWidgetKey(): ApiError {
  return new ApiError('unknown_site', 'This widget key names no site (rotated, or the site was deleted).');
}

/**
 * Widget key → site and owner's plan, per gateway replica, keyed by the key's SHA-256
 * (the key itself is never held). Kept `ttlMs` (REPORT_CACHE_TTL_MS) and dropped at once
 * by news: `site.updated` (a rotation announces itself so), `site.deleted`, report access
 * changes — so a rotated key stops within one bus delivery, and at once on the replica
 * that rotated it. Keys that name nothing are not kept (the rate limits bound guessing);
 * identical lookups arriving together run once.
 */
export class WidgetSites {
  private readonly lookups: SiteLookupCache<WidgetSite>;

  constructor(ttlMs: number, now?: () => number, maxEntries?: number) {
    this.lookups = new SiteLookupCache(ttlMs, now, maxEntries);
  }

  resolve(key: string, loaders: WidgetSiteLoaders): Promise<WidgetSite> {
    return this.lookups.resolve(createHash('sha256').update(key).digest('base64url'), () => fetchWidgetSite(key, loaders));
  }

  forgetSite(siteId: number): void {
    this.lookups.forgetSite(siteId);
  }

  forgetAccount(accountId: number): void {
    this.lookups.forgetAccount(accountId);
  }
}

async function fetchWidgetSite(key: string, loaders: WidgetSiteLoaders): Promise<SiteLookup<WidgetSite>> {
  const site = await loaders.siteByKey(key).catch((error: unknown) => {
    throw isApiError(error) && error.code === 'unknown_site' ? unknownWidgetKey() : error;
  });
  const plan = await loaders.getPlan(site.ownerAccountId);
  const widget: WidgetSite = {
    // goals are not part of any widget's answer: none asked, so the answer cache shares entries with other routes
    site: { siteId: site.siteId, timezone: site.timezone, weekStart: site.weekStart, goals: [] },
    ownerAccountId: site.ownerAccountId,
    plan: { reportsOpen: plan.reportsOpen, trackingActive: plan.trackingActive },
  };
  return { value: widget, siteId: site.siteId, ownerAccountId: site.ownerAccountId };
}
