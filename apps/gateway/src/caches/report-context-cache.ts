import { LRUCache } from 'lru-cache';
import { ApiError } from '@sightline/errors';
import type { commonV1, identityV1, sitesV1 } from '@sightline/proto';

/** What a report needs to know about a site besides reach. */
export interface SiteReportInfo {
  timezone: string;
  weekStart: number;
  ownerAccountId: number;
}

export type PlanState = Pick<identityV1.PlanState, 'reportsOpen' | 'trackingActive'>;

/** The live calls behind the cache (the query route passes gRPC calls bound to the request). */
export interface ReportContextLoaders {
  /** Sites/GetSite with the caller's actor: the reach and key-scope check, never skipped */
  getSite: () => Promise<Pick<sitesV1.Site, 'timezone' | 'weekStart' | 'ownerAccountId'>>;
  /** Identity/GetPlan of an account */
  getPlan: (accountId: number) => Promise<PlanState>;
}

export interface ReportContextCacheOptions {
  /** how long a plan is used without asking identity (REPORT_CACHE_TTL_MS); 0 asks every time */
  ttlMs: number;
  /**
   * how long after it was last confirmed a value may still be served while the service
   * that knows it answers `unavailable` (a restart); never used when the service answers
   */
  staleMs: number;
  maxEntries?: number;
  /** milliseconds (tests move it) */
  now?: () => number;
}

interface Stamped<T> {
  value: T;
  at: number;
}

/**
 * Site report context and plan state for POST /query and GET /props, per gateway replica.
 *
 * What is cached and how it is used:
 * - Plan state per owner account: served for `ttlMs` without a call (plans change by
 *   billing, which this gateway routes and broadcasts, or by time: a trial ends within
 *   the TTL of the moment it ends).
 * - Site info (timezone, week start, owner) per site: lets GetPlan run beside GetSite on a
 *   plan miss instead of after it; used as the answer only while sites is unavailable.
 * - Reach (this key may read this site) per key and site: never skips GetSite. It is only
 *   a fallback while sites is unavailable, and only if sites confirmed it within `staleMs`.
 *   A membership can only be removed while sites is up; the removal is broadcast
 *   (`report-access.changed`) and drops the site's reach entries on every replica, and a
 *   revoked key (`keys.revoked`) drops its own, so neither keeps access through an outage.
 * - News drops entries at once: site.updated / site.deleted / settings.changed (site
 *   info and reach of the site), report-access.changed (site reach; account plan).
 *
 * Bounded staleness: a plan is at most `ttlMs` old while identity answers; while a service
 * is unreachable, values at most `staleMs` old are served; older ones fail as before (503).
 */
export class ReportContextCache {
  private readonly sites: LRUCache<number, Stamped<SiteReportInfo>>;
  private readonly plans: LRUCache<number, Stamped<PlanState>>;
  /** `${keyId} ${siteId}` → when sites last confirmed the reach */
  private readonly reach: LRUCache<string, number>;
  private readonly now: () => number;
  /** answers served from stale entries because a service was unavailable (diagnostics, tests) */
  staleAnswers = 0;

  constructor(private readonly options: ReportContextCacheOptions) {
    const max = options.maxEntries ?? 10_000;
    this.sites = new LRUCache({ max });
    this.plans = new LRUCache({ max });
    this.reach = new LRUCache({ max: max * 4 });
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Reach (live unless sites is unavailable), site info and plan of `siteId` for `actor`.
   * GetSite always runs; GetPlan runs beside it when the owner is known and the plan is not fresh.
   */
  async resolve(actor: commonV1.Actor, siteId: number, loaders: ReportContextLoaders): Promise<{ site: SiteReportInfo; plan: PlanState }> {
    const knownSite = this.sites.get(siteId);
    const early = knownSite && !this.freshPlan(knownSite.value.ownerAccountId) ? this.loadPlan(knownSite.value.ownerAccountId, loaders) : undefined;
    // a rejection of the early plan call is handled where it is awaited, not reported unhandled
    early?.catch(() => undefined);
    const site = await this.loadSite(actor, siteId, loaders);
    const owner = site.ownerAccountId;
    const plan = this.freshPlan(owner) ?? (early && knownSite!.value.ownerAccountId === owner ? await early : await this.loadPlan(owner, loaders));
    return { site, plan };
  }

  /** Site changed (name, timezone, week start, settings) or was deleted: forget its info and reach. */
  forgetSite(siteId: number): void {
    this.sites.delete(siteId);
    this.forgetReach((key) => key.endsWith(` ${siteId}`));
  }

  /** A member lost access to a site: no key keeps a stale reach to it. */
  forgetSiteReach(siteId: number): void {
    this.forgetReach((key) => key.endsWith(` ${siteId}`));
  }

  forgetPlan(accountId: number): void {
    this.plans.delete(accountId);
  }

  forgetKey(keyId: string): void {
    this.forgetReach((key) => key.startsWith(`${keyId} `));
  }

  private forgetReach(matches: (key: string) => boolean): void {
    for (const key of [...this.reach.keys()]) if (matches(key)) this.reach.delete(key);
  }

  private freshPlan(accountId: number): PlanState | undefined {
    const entry = this.plans.get(accountId);
    return entry && this.now() - entry.at < this.options.ttlMs ? entry.value : undefined;
  }

  private async loadSite(actor: commonV1.Actor, siteId: number, loaders: ReportContextLoaders): Promise<SiteReportInfo> {
    const reachKey = `${actor.keyId} ${siteId}`;
    try {
      const site = await loaders.getSite();
      const info = { timezone: site.timezone, weekStart: site.weekStart, ownerAccountId: site.ownerAccountId };
      const at = this.now();
      this.sites.set(siteId, { value: info, at });
      this.reach.set(reachKey, at);
      return info;
    } catch (error) {
      const confirmedAt = this.reach.get(reachKey);
      const known = this.sites.get(siteId);
      if (isUnavailable(error) && known && confirmedAt !== undefined && this.recent(confirmedAt) && this.recent(known.at)) {
        this.staleAnswers += 1;
        return known.value;
      }
      // a refusal (404, 403) ends any reach this key had
      if (!isUnavailable(error)) this.reach.delete(reachKey);
      throw error;
    }
  }

  private async loadPlan(accountId: number, loaders: ReportContextLoaders): Promise<PlanState> {
    try {
      const plan = await loaders.getPlan(accountId);
      const value = { reportsOpen: plan.reportsOpen, trackingActive: plan.trackingActive };
      this.plans.set(accountId, { value, at: this.now() });
      return value;
    } catch (error) {
      const known = this.plans.get(accountId);
      if (isUnavailable(error) && known && this.recent(known.at)) {
        this.staleAnswers += 1;
        return known.value;
      }
      throw error;
    }
  }

  private recent(at: number): boolean {
    return this.now() - at <= this.options.staleMs;
  }
}

function isUnavailable(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'unavailable';
}
