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
  /** how long a plan, and a reach sites confirmed, are used without asking (REPORT_CACHE_TTL_MS); 0 asks every time */
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
 *   plan miss instead of after it, and is the answer while the key's reach is fresh.
 * - Reach (this key may read this site) per key and site, as sites last confirmed it:
 *   for `ttlMs` after that confirmation GetSite is skipped (the fixed cost of a query
 *   was a GetSite round trip and its SQL on every request). Only sites' yes is kept: a
 *   refusal (404 `unknown_site`, 403 `key_not_scoped`) is asked again every time and
 *   drops the entry, so a site the key cannot reach stays indistinguishable from a
 *   missing one. Reach is lost only by news, which drops the entries at once: a member
 *   removal (`report-access.changed`, sent by the gateway that routed it, after this
 *   replica forgot), a revoked key or session (`keys.revoked`; such a key is refused by
 *   authentication before reach is asked anyway), a deleted or changed site (`site.deleted`,
 *   `site.updated`; the replica that routed the change forgets before it answers).
 *   A confirmation that was in flight while news dropped entries is not kept. After
 *   `ttlMs`, and while sites is unavailable only if sites confirmed it within `staleMs`,
 *   the reach is asked or refused as before.
 * - News drops entries at once: site.updated / site.deleted / settings.changed (site
 *   info and reach of the site), report-access.changed (site reach; account plan).
 *
 * Bounded staleness: a plan or a reach is at most `ttlMs` old while the services answer
 * (a broadcast that never arrived is the only way to reach that bound); while a service
 * is unreachable, values at most `staleMs` old are served; older ones fail as before (503).
 */
export class ReportContextCache {
  private readonly sites: LRUCache<number, Stamped<SiteReportInfo>>;
  private readonly plans: LRUCache<number, Stamped<PlanState>>;
  /** `${keyId} ${siteId}` → when sites last confirmed the reach */
  private readonly reach: LRUCache<string, number>;
  /** bumped by every forget: a confirmation that started before news dropped entries is not kept */
  private epoch = 0;
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
   * Reach, site info and plan of `siteId` for `actor`. GetSite runs unless sites confirmed
   * this key's reach within `ttlMs` (and no news dropped it since); GetPlan runs, beside
   * GetSite when the owner is known, unless the plan is fresh.
   */
  async resolve(actor: commonV1.Actor, siteId: number, loaders: ReportContextLoaders): Promise<{ site: SiteReportInfo; plan: PlanState }> {
    const knownSite = this.sites.get(siteId);
    if (knownSite && this.freshReach(`${actor.keyId} ${siteId}`)) {
      const owner = knownSite.value.ownerAccountId;
      return { site: knownSite.value, plan: this.freshPlan(owner) ?? (await this.loadPlan(owner, loaders)) };
    }
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
    this.epoch += 1;
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
    this.epoch += 1;
    for (const key of [...this.reach.keys()]) if (matches(key)) this.reach.delete(key);
  }

  private freshReach(reachKey: string): boolean {
    const confirmedAt = this.reach.get(reachKey);
    return confirmedAt !== undefined && this.now() - confirmedAt < this.options.ttlMs;
  }

  private freshPlan(accountId: number): PlanState | undefined {
    const entry = this.plans.get(accountId);
    return entry && this.now() - entry.at < this.options.ttlMs ? entry.value : undefined;
  }

  private async loadSite(actor: commonV1.Actor, siteId: number, loaders: ReportContextLoaders): Promise<SiteReportInfo> {
    const reachKey = `${actor.keyId} ${siteId}`;
    const epoch = this.epoch;
    try {
      const site = await loaders.getSite();
      const info = { timezone: site.timezone, weekStart: site.weekStart, ownerAccountId: site.ownerAccountId };
      // news arrived while the call was out: its answer may predate it, so it confirms nothing
      if (epoch !== this.epoch) return info;
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
