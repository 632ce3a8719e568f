import { createHash } from 'node:crypto';
import { ApiError, isApiError } from '@sightline/errors';
import type { identityV1, sitesV1 } from '@sightline/proto';
import type { PlanState } from '../caches/report-context-cache.js';
import type { ReportSite } from '../reports/report-queries.js';

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

interface Known {
  widget: WidgetSite;
  at: number;
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
  private readonly known = new Map<string, Known>();
  private readonly flights = new Map<string, Promise<WidgetSite>>();
  /** bumped by every piece of news: a lookup that started before it keeps nothing */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(key: string, loaders: WidgetSiteLoaders): Promise<WidgetSite> {
    const id = createHash('sha256').update(key).digest('base64url');
    const entry = this.known.get(id);
    if (entry && this.now() - entry.at < this.ttlMs) return entry.widget;
    let flight = this.flights.get(id);
    if (!flight) {
      flight = this.fetch(id, key, loaders).finally(() => this.flights.delete(id));
      this.flights.set(id, flight);
    }
    return flight;
  }

  forgetSite(siteId: number): void {
    this.generation += 1;
    for (const [id, entry] of this.known) if (entry.widget.site.siteId === siteId) this.known.delete(id);
  }

  forgetAccount(accountId: number): void {
    this.generation += 1;
    for (const [id, entry] of this.known) if (entry.widget.ownerAccountId === accountId) this.known.delete(id);
  }

  private async fetch(id: string, key: string, loaders: WidgetSiteLoaders): Promise<WidgetSite> {
    const generation = this.generation;
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
    if (generation === this.generation) {
      if (this.known.size >= this.maxEntries) this.known.delete(this.known.keys().next().value!);
      this.known.set(id, { widget, at: this.now() });
    }
    return widget;
  }
}
