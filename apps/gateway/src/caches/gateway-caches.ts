import type { FastifyInstance } from 'fastify';
import { SUBJECTS, type Subscription } from '@sightline/bus';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { ServiceClients } from '@sightline/service-clients';
import { KeyCache } from '../auth/key-cache.js';
import type { GatewayOptions } from '../gateway-options.js';
import { ShareSites } from '../share/share-sites.js';
import { WidgetAnswerCache } from '../widgets/widget-answer-cache.js';
import { WidgetSites } from '../widgets/widget-sites.js';
import { answerNews, reportContextNews, siteLookupNews, subscribeCacheNews, type AccessChange } from './cache-news.js';
import { QueryAnswerCache, type QueryAnswerCacheOptions } from './query-answer-cache.js';
import { ReportContextCache } from './report-context-cache.js';
import { TrackerScriptCache } from './tracker-script-cache.js';
import { TrackingKeyCheck } from './tracking-key-check.js';

const DEFAULT_QUERY_CACHE: Omit<QueryAnswerCacheOptions, 'now'> = {
  maxBytes: 64 * 1024 * 1024,
  liveTtlMs: 10_000,
  closedTtlMs: 3_600_000,
  closedAfterMs: 3_600_000,
};
const DEFAULT_REPORT_CACHE = { ttlMs: 5_000, staleMs: 60_000 };

/** The gateway's per-replica caches, and the ways to make them forget. */
export interface GatewayCaches {
  /** bearer keys */
  keyCache: KeyCache;
  /** dashboard sessions: same TTL and revocation path as keys, kept apart so a cookie's token is never a bearer key */
  sessionCache: KeyCache;
  reportCache: ReportContextCache;
  answers: QueryAnswerCache;
  shareSites: ShareSites;
  widgetSites: WidgetSites;
  widgetCache: WidgetAnswerCache;
  trackingKeys: TrackingKeyCheck;
  scriptCache: TrackerScriptCache;
  /** a revoked key (or web session: its session id is its key id) on this replica */
  forgetKey: (keyId: string) => void;
  /** a plan or membership change: this replica forgets at once, the others when the broadcast reaches them */
  announceAccessChange: (change: AccessChange) => Promise<void>;
  /** an import or its deletion changed a site's data */
  announceDataChange: (siteId: number) => Promise<void>;
  /** a site's widget settings changed on this replica */
  forgetWidgetSite: (siteId: number) => void;
}

type CacheOptions = Pick<GatewayOptions, 'bus' | 'log' | 'keyCacheTtlMs' | 'reportCache' | 'queryCache' | 'widgets' | 'grpcDeadlineMs'>;

/**
 * Builds the caches and subscribes them to the news that keeps every replica's copy
 * current; the subscriptions stop when the app closes.
 */
export async function openCaches(app: FastifyInstance, options: CacheOptions, sites: ServiceClients['sites']): Promise<GatewayCaches> {
  const { bus, log } = options;
  const staleness = options.reportCache ?? DEFAULT_REPORT_CACHE;
  const keyCache = new KeyCache(options.keyCacheTtlMs, undefined, staleness.staleMs);
  const sessionCache = new KeyCache(options.keyCacheTtlMs, undefined, staleness.staleMs);
  const reportCache = new ReportContextCache(staleness);
  const answers = new QueryAnswerCache(options.queryCache ?? DEFAULT_QUERY_CACHE);
  const shareSites = new ShareSites(staleness.ttlMs);
  const widgetSites = new WidgetSites(staleness.ttlMs);
  const widgetCache = new WidgetAnswerCache((options.widgets ?? WIDGET_DEFAULTS).cacheTtlMs);
  const deadlineMs = options.grpcDeadlineMs;
  const trackingKeys = new TrackingKeyCheck({
    lookup: (trackingKey, requestId) =>
      callUnary(sites, sites.getSiteByTrackingKey, 'Sites/GetSiteByTrackingKey', { trackingKey }, { requestId, deadlineMs }).then(
        () => true,
        (error: unknown) => {
          if (error instanceof ApiError && error.code === 'unknown_site') return false;
          throw error;
        },
      ),
  });
  const forgetKey = (keyId: string) => {
    keyCache.forgetKey(keyId);
    sessionCache.forgetKey(keyId);
    reportCache.forgetKey(keyId);
  };

  const subscriptions: Subscription[] = [];
  app.addHook('onClose', async () => void (await Promise.allSettled(subscriptions.map((s) => s.stop()))));
  // a revoked or rotated key stops working on every replica at once, whatever the cache TTL
  subscriptions.push(await bus.subscribe(SUBJECTS.keysRevoked, (revoked) => forgetKey(revoked.key_id)));
  const news = [
    reportContextNews(reportCache),
    answerNews(answers),
    siteLookupNews(shareSites, true),
    siteLookupNews(widgetSites, false),
    answerNews(widgetCache),
  ];
  subscriptions.push(...(await subscribeCacheNews(bus, news)));
  // a deleted site's key is refused from the next event on, whatever the cache TTL
  subscriptions.push(await bus.subscribe(SUBJECTS.siteDeleted, (deleted) => trackingKeys.forget(deleted.tracking_key)));

  return {
    keyCache,
    sessionCache,
    reportCache,
    answers,
    shareSites,
    widgetSites,
    widgetCache,
    trackingKeys,
    scriptCache: new TrackerScriptCache(),
    forgetKey,
    announceAccessChange: async (change) => {
      if (change.site_id !== undefined) reportCache.forgetSiteReach(change.site_id);
      if (change.account_id !== undefined) reportCache.forgetPlan(change.account_id);
      if (change.site_id !== undefined) shareSites.forgetSite(change.site_id);
      if (change.account_id !== undefined) shareSites.forgetAccount(change.account_id);
      await bus
        .broadcast(SUBJECTS.reportAccessChanged, change)
        .catch((error: unknown) =>
          log.warn({ err: error }, 'report-access.changed broadcast failed; other gateways forget within REPORT_CACHE_TTL_MS (plans and reach)'),
        );
    },
    announceDataChange: async (siteId) => {
      answers.forgetSite(siteId);
      await bus
        .broadcast(SUBJECTS.reportDataChanged, { site_id: siteId })
        .catch((error: unknown) =>
          log.warn({ err: error }, 'report-data.changed broadcast failed; other gateways keep cached answers of the site up to QUERY_CACHE_CLOSED_TTL_MS'),
        );
    },
    forgetWidgetSite: (siteId) => {
      widgetSites.forgetSite(siteId);
      widgetCache.forgetSite(siteId);
    },
  };
}

/** WIDGET_CACHE_TTL_MS, WIDGET_RATE_LIMIT_PER_MINUTE, WIDGET_KEY_RATE_LIMIT_PER_MINUTE when unset */
export const WIDGET_DEFAULTS = { cacheTtlMs: 60_000, rateLimitPerMinute: 600, keyRateLimitPerMinute: 60 };
