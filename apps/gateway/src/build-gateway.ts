import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { sitesV1 } from '@sightline/proto';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from '@sightline/telemetry';
import { registerRequestId, newRequestId } from './edge/request-id.js';
import { requestLoggerFactory } from './edge/request-logger.js';
import { registerErrorRenderer } from './edge/render-error.js';
import { registerJsonBodyParser } from './edge/json-body.js';
import { clientErrorHandler, renderFrameworkError } from './edge/framework-errors.js';
import { RouteIndex } from './edge/route-index.js';
import { registerNotFound } from './edge/not-found.js';
import { registerWriteSwitch } from './edge/write-switch.js';
import { registerOpenApi, OPENAPI_PATH } from './edge/openapi.js';
import { registerTracing } from './edge/tracing-hooks.js';
import { registerMetrics } from './edge/metrics-hooks.js';
import { registerUntrustedProxyWarning } from './edge/untrusted-proxy-warning.js';
import { openApiDocumentRoute } from './routes/openapi-document.js';
import { healthRoutes, type HealthRouteOptions } from './routes/health.js';
import { clientOf, type ServiceClient } from './services/service-clients.js';
import { termsRoutes } from './routes/terms.js';
import { DEFAULT_EVENT_SHARDS, SUBJECTS, type Bus } from '@sightline/bus';
import { KeyCache } from './auth/key-cache.js';
import { registerAuthentication } from './auth/authenticate.js';
import { UsageMeter, type BudgetLimits } from './budgets/usage-meter.js';
import { registrationRoutes } from './routes/registration.js';
import { keyRoutes } from './routes/keys.js';
import { billingRoutes } from './routes/billing.js';
import { siteRoutes } from './routes/sites.js';
import { memberRoutes } from './routes/site-members.js';
import { goalRoutes } from './routes/site-goals.js';
import { funnelReportRoutes } from './routes/site-funnel-report.js';
import { auditRoutes } from './routes/site-audit.js';
import { annotationRoutes } from './routes/site-annotations.js';
import { collectRoutes } from './routes/collect.js';
import { trackerScriptRoutes } from './routes/tracker-script.js';
import { siteSettingsRoutes } from './routes/site-settings.js';
import { exportRoutes } from './routes/site-export.js';
import { importRoutes } from './routes/site-imports.js';
import { queryRoutes } from './routes/query.js';
import { webSessionRoutes } from './routes/web-session.js';
import { TrackerScriptCache } from './caches/tracker-script-cache.js';
import { AccessLogThrottle } from './edge/access-log-throttle.js';
import { ReportContextCache } from './caches/report-context-cache.js';
import { subscribeReportNews } from './caches/report-context-news.js';
import { TrackingKeyCheck } from './caches/tracking-key-check.js';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import { QueryAnswerCache, type QueryAnswerCacheOptions } from './caches/query-answer-cache.js';
import { subscribeAnswerNews } from './caches/query-answer-news.js';
import { ReportQueries } from './reports/report-queries.js';
import { shareRoutes } from './routes/share.js';
import { ClientRateLimit } from './share/client-rate-limit.js';
import { ShareSites, shareLookup } from './share/share-sites.js';
import { loadDashboardDist, type DashboardDist } from './web/dashboard-dist.js';
import { webRoutes } from './web/web-routes.js';
import { widgetRoutes } from './routes/widgets.js';
import { WidgetAnswerCache } from './widgets/widget-answer-cache.js';
import { WidgetAnswers } from './widgets/widget-answers.js';
import { subscribeWidgetNews } from './widgets/widget-news.js';
import { WidgetSites } from './widgets/widget-sites.js';
import { widgetScriptRoutes } from './routes/widget-scripts.js';
import { loadWidgetsDist, type WidgetsDist } from './widgets/widgets-dist.js';

const DEFAULT_QUERY_CACHE: Omit<QueryAnswerCacheOptions, 'now'> = { maxBytes: 64 * 1024 * 1024, liveTtlMs: 10_000, closedTtlMs: 3_600_000, closedAfterMs: 3_600_000 };

/** Routes whose successful requests are logged at debug, not info (high volume, no news). */
const QUIET_ROUTES = new Set(['/api/event', '/healthz', '/readyz', '/readyz/gateway']);

interface AccessLogLine {
  method: string;
  url: string;
  status: number;
  ms: number;
  /** refusals of this route and status logged at debug since the previous info line (AccessLogThrottle) */
  suppressed?: number;
}

export interface GatewayOptions {
  log: Logger;
  publicUrl: string;
  version: string;
  writesEnabled: boolean;
  bodyLimitBytes: number;
  /** IMPORT_MAX_BYTES: the largest import upload (streamed, never held whole) */
  importMaxBytes: number;
  trustedProxies: string[];
  services: readonly ServiceClient[];
  ownStores: HealthRouteOptions['ownStores'];
  grpcDeadlineMs: number;
  /** carries key revocations to this replica's cache, and collected events to ingest */
  bus: Bus;
  /** EVENT_SHARDS (default 8): collected events go to `events.collected.<shard>` */
  eventShards?: number;
  keyCacheTtlMs: number;
  /** plan TTL of the report context cache (POST /query, GET /props), and how old keys, reach and plans may be while identity or sites is unavailable; default 5 s / 60 s */
  reportCache?: { ttlMs: number; staleMs: number };
  budgets: BudgetLimits;
  usageSyncIntervalMs: number;
  /** the terms of service accepted at registration: TERMS_URL (unset: the bundled page) and TERMS_VERSION */
  terms: { externalUrl?: string; url: string; version: string };
  /** answers of every query route (key, session, share): QUERY_CACHE_*; default 64 MiB, 10 s live, 1 h closed */
  queryCache?: Omit<QueryAnswerCacheOptions, 'now'>;
  /** SHARE_RATE_LIMIT_PER_MINUTE: share API and page requests per client address; 0 = no limit (default 600) */
  shareRateLimitPerMinute?: number;
  /** EXPORT_RATE_LIMIT_PER_HOUR: exports one key or session may start per hour; 0 = no limit (default 30) */
  exportRateLimitPerHour?: number;
  /** the embeddable widgets' data: WIDGET_CACHE_TTL_MS, WIDGET_RATE_LIMIT_PER_MINUTE, WIDGET_KEY_RATE_LIMIT_PER_MINUTE (default 60 s, 600, 60) */
  widgets?: { cacheTtlMs: number; rateLimitPerMinute: number; keyRateLimitPerMinute: number };
  /** WIDGETS_DIR: the widgets build (manifest.json + bundles); without a manifest /widgets/v1/*.js answer 404 */
  widgetsDir?: string;
  /** DASHBOARD_DIR: the dashboard build (manifest.json + assets/); without a manifest the pages answer 503 */
  dashboardDir?: string;
  /** extra route plugins (used by tests to exercise edge behaviour on routes of their own) */
  extraRoutes?: Array<(app: FastifyInstance) => Promise<void>>;
}

/**
 * Builds the HTTP edge. Order matters: the hooks that every route must get
 * (request id, tracing, write switch, route index for 405) are registered before
 * any route, and the OpenAPI plugin before the routes it describes.
 */
export async function buildGateway(options: GatewayOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger at run time; the cast only unifies the generic
    loggerInstance: options.log as FastifyBaseLogger,
    // one line per request is written by our onResponse hook, with the fields we choose
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: newRequestId,
    // request.log becomes a pino child only when the request logs something (see RequestLogger)
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustedProxies.length > 0 ? options.trustedProxies : false,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // failures raised before any route or hook still answer the error object
    frameworkErrors: renderFrameworkError,
    clientErrorHandler: clientErrorHandler(options.log),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const docsUrl = `${options.publicUrl}${OPENAPI_PATH}`;
  // tracing first: the request's span is active for every later hook, so their log lines carry its trace_id
  registerTracing(app);
  registerRequestId(app);
  registerMetrics(app);
  if (options.trustedProxies.length === 0) registerUntrustedProxyWarning(app, options.log);
  registerErrorRenderer(app);
  registerJsonBodyParser(app);
  const routes = RouteIndex.attach(app);
  registerWriteSwitch(app, options.writesEnabled);
  const identity = clientOf(options.services, 'identity');
  const staleness = options.reportCache ?? { ttlMs: 5_000, staleMs: 60_000 };
  const keyCache = new KeyCache(options.keyCacheTtlMs, undefined, staleness.staleMs);
  // dashboard sessions: same TTL and revocation path as keys, kept apart so a cookie's token is never a bearer key
  const sessionCache = new KeyCache(options.keyCacheTtlMs, undefined, staleness.staleMs);
  const meter = new UsageMeter(identity, options.budgets, options.log);
  registerAuthentication(app, { identity, cache: keyCache, sessionCache, meter, deadlineMs: options.grpcDeadlineMs });
  // a revoked or rotated key stops working on every replica at once, whatever the cache TTL
  const reportCache = new ReportContextCache(staleness);
  // (a revoked web session arrives here too: its session id is its key id)
  const forgetKey = (keyId: string) => {
    keyCache.forgetKey(keyId);
    sessionCache.forgetKey(keyId);
    reportCache.forgetKey(keyId);
  };
  const revocations = await options.bus.subscribe(SUBJECTS.keysRevoked, (revoked) => forgetKey(revoked.key_id));
  meter.start(options.usageSyncIntervalMs);
  const reportNews = await subscribeReportNews(options.bus, reportCache);
  app.addHook('onClose', async () => {
    await revocations.stop();
    await Promise.allSettled(reportNews.map((s) => s.stop()));
    await meter.stop();
  });
  // this replica forgets at once; the others when the broadcast reaches them
  const answers = new QueryAnswerCache(options.queryCache ?? DEFAULT_QUERY_CACHE);
  const shareSites = new ShareSites(staleness.ttlMs);
  const answerNews = await subscribeAnswerNews(options.bus, answers, shareSites);
  app.addHook('onClose', async () => void (await Promise.allSettled(answerNews.map((s) => s.stop()))));
  const announceAccessChange = async (change: { site_id?: number; account_id?: number }) => {
    if (change.site_id !== undefined) reportCache.forgetSiteReach(change.site_id);
    if (change.account_id !== undefined) reportCache.forgetPlan(change.account_id);
    if (change.site_id !== undefined) shareSites.forgetSite(change.site_id);
    if (change.account_id !== undefined) shareSites.forgetAccount(change.account_id);
    await options.bus.broadcast(SUBJECTS.reportAccessChanged, change).catch((error: unknown) => options.log.warn({ err: error }, 'report-access.changed broadcast failed; other gateways forget within REPORT_CACHE_TTL_MS (plans) or never use the stale reach while sites answers'));
  };
  registerNotFound(app, routes, docsUrl);
  const refusalLogThrottle = new AccessLogThrottle();
  // callback style: one promise less per request (every collected event passes here)
  app.addHook('onResponse', (request, reply, done) => {
    const line: AccessLogLine = { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    const route = request.routeOptions.url ?? '';
    if (!QUIET_ROUTES.has(route)) request.log.info(line, 'request');
    // tracker traffic and probes are counted in /metrics; a line each would drown the log at info
    else if (reply.statusCode < 400) request.log.debug(line, 'request');
    else {
      // their refusals too, past a few per window (a deleted site's snippet left on a busy page)
      const admitted = refusalLogThrottle.admit(route, reply.statusCode);
      if (admitted && admitted.suppressed > 0) line.suppressed = admitted.suppressed;
      if (admitted) request.log.info(line, 'request');
      else request.log.debug(line, 'request');
    }
    done();
  });

  await registerOpenApi(app, { publicUrl: options.publicUrl, version: options.version, termsUrl: options.terms.url });
  await app.register(openApiDocumentRoute);
  await app.register(termsRoutes, { externalUrl: options.terms.externalUrl, version: options.terms.version });
  await app.register(healthRoutes, { services: options.services, ownStores: options.ownStores, deadlineMs: options.grpcDeadlineMs });
  const deadlineMs = options.grpcDeadlineMs;
  await app.register(registrationRoutes, { identity, deadlineMs });
  await app.register(webSessionRoutes, { identity, sessionCache, forgetSessions: (ids) => ids.forEach(forgetKey), deadlineMs });
  const sites = clientOf(options.services, 'sites');
  await app.register(keyRoutes, { identity, sites, deadlineMs });
  await app.register(billingRoutes, { identity, deadlineMs, announceAccessChange });
  const widgetOptions = options.widgets ?? { cacheTtlMs: 60_000, rateLimitPerMinute: 600, keyRateLimitPerMinute: 60 };
  const widgetSites = new WidgetSites(staleness.ttlMs);
  const widgetCache = new WidgetAnswerCache(widgetOptions.cacheTtlMs);
  const widgetNews = await subscribeWidgetNews(options.bus, widgetSites, widgetCache);
  app.addHook('onClose', async () => void (await Promise.allSettled(widgetNews.map((s) => s.stop()))));
  const forgetWidgetSite = (siteId: number) => {
    widgetSites.forgetSite(siteId);
    widgetCache.forgetSite(siteId);
  };
  await app.register(siteRoutes, { sites, identity, deadlineMs, publicUrl: options.publicUrl, forgetWidgetSite });
  await app.register(memberRoutes, { sites, identity, deadlineMs, announceAccessChange });
  await app.register(goalRoutes, { sites, deadlineMs });
  await app.register(auditRoutes, { sites, deadlineMs });
  await app.register(annotationRoutes, { sites, identity, deadlineMs });
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
  // a deleted site's key is refused from the next event on, whatever the cache TTL
  const deletions = await options.bus.subscribe(SUBJECTS.siteDeleted, (deleted) => trackingKeys.forget(deleted.tracking_key));
  app.addHook('onClose', async () => deletions.stop());
  await app.register(collectRoutes, { bus: options.bus, eventShards: options.eventShards ?? DEFAULT_EVENT_SHARDS, keys: trackingKeys });
  const settings = clientOf(options.services, 'settings');
  const scriptBuilder = clientOf(options.services, 'script-builder');
  const scriptCache = new TrackerScriptCache();
  await app.register(trackerScriptRoutes, { sites, settings, scriptBuilder, cache: scriptCache, publicUrl: options.publicUrl, deadlineMs });
  const query = clientOf(options.services, 'query');
  await app.register(siteSettingsRoutes, { sites, settings, scriptBuilder, identity, query, scriptCache, deadlineMs });
  const reports = new ReportQueries(query, answers, deadlineMs);
  await app.register(queryRoutes, { sites, identity, reports, deadlineMs, cache: reportCache });
  await app.register(funnelReportRoutes, { sites, identity, reports, deadlineMs, cache: reportCache });
  const lookup = shareLookup({ sites, identity, settings, deadlineMs, cache: shareSites });
  const rateLimit = new ClientRateLimit(options.shareRateLimitPerMinute ?? 600);
  await app.register(widgetRoutes, {
    sites,
    identity,
    deadlineMs,
    widgetSites,
    answers: new WidgetAnswers(reports),
    cache: widgetCache,
    clientLimit: new ClientRateLimit(widgetOptions.rateLimitPerMinute),
    keyLimit: new ClientRateLimit(widgetOptions.keyRateLimitPerMinute),
  });
  const sharedAnnotations = (request: FastifyRequest, siteId: number, window: sitesV1.AnnotationWindow) =>
    callUnary(sites, sites.listSharedAnnotations, 'Sites/ListSharedAnnotations', { siteId, window }, { requestId: request.id, deadlineMs });
  await app.register(shareRoutes, { lookup, reports, rateLimit, annotations: sharedAnnotations });
  // a missing or broken build (one being rewritten, say) costs the pages, never the API
  let dist: DashboardDist | undefined;
  if (options.dashboardDir) {
    try {
      dist = await loadDashboardDist(options.dashboardDir);
      if (!dist) options.log.warn({ dashboard_dir: options.dashboardDir }, 'the dashboard is not built (no manifest.json): its pages answer 503 until `npm run build:dashboard` and a restart');
    } catch (error) {
      options.log.error({ err: error, dashboard_dir: options.dashboardDir }, 'the dashboard build is unreadable: its pages answer 503 until it is rebuilt and the gateway restarted');
    }
  }
  await app.register(webRoutes, { dist, lookup, rateLimit });
  let widgetsDist: WidgetsDist | undefined;
  if (options.widgetsDir) {
    try {
      widgetsDist = await loadWidgetsDist(options.widgetsDir);
      if (!widgetsDist) options.log.warn({ widgets_dir: options.widgetsDir }, 'the widgets are not built (no manifest.json): /widgets/v1/*.js answer 404 until `npm run build:widgets` and a restart');
    } catch (error) {
      options.log.error({ err: error, widgets_dir: options.widgetsDir }, 'the widgets build is unreadable: /widgets/v1/*.js answer 404 until it is rebuilt (`npm run build:widgets`) and the gateway restarted');
    }
  }
  await app.register(widgetScriptRoutes, { dist: widgetsDist });
  const announceDataChange = async (siteId: number) => {
    answers.forgetSite(siteId);
    await options.bus.broadcast(SUBJECTS.reportDataChanged, { site_id: siteId }).catch((error: unknown) => options.log.warn({ err: error }, 'report-data.changed broadcast failed; other gateways keep cached answers of the site up to QUERY_CACHE_CLOSED_TTL_MS'));
  };
  await app.register(exportRoutes, { sites, query, deadlineMs, perHour: options.exportRateLimitPerHour ?? 30 });
  await app.register(importRoutes, { sites, ingest: clientOf(options.services, 'ingest'), deadlineMs, maxBytes: options.importMaxBytes, announceDataChange });
  for (const extra of options.extraRoutes ?? []) await app.register(extra);
  await app.ready();
  return app;
}
