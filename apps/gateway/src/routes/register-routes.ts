import type { FastifyRequest } from 'fastify';
import { DEFAULT_EVENT_SHARDS } from '@sightline/bus';
import { callUnary } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { WIDGET_DEFAULTS, type GatewayCaches } from '../caches/gateway-caches.js';
import type { GatewayApp } from '../edge/edge-hooks.js';
import { registerOpenApi } from '../edge/openapi.js';
import type { GatewayOptions } from '../gateway-options.js';
import { ReportQueries } from '../reports/report-queries.js';
import { clientOf, streamClientOf } from '../services/service-clients.js';
import { ClientRateLimit } from '../share/client-rate-limit.js';
import { shareLookup } from '../share/share-sites.js';
import { loadDashboardDist, type DashboardDist } from '../web/dashboard-dist.js';
import { webRoutes } from '../web/web-routes.js';
import { WidgetAnswers } from '../widgets/widget-answers.js';
import { loadWidgetsDist, type WidgetsDist } from '../widgets/widgets-dist.js';
import { billingRoutes } from './billing.js';
import { collectRoutes } from './collect.js';
import { healthRoutes } from './health.js';
import { keyRoutes } from './keys.js';
import { openApiDocumentRoute } from './openapi-document.js';
import { queryRoutes } from './query.js';
import { registrationRoutes } from './registration.js';
import { shareRoutes } from './share.js';
import { annotationRoutes } from './site-annotations.js';
import { auditRoutes } from './site-audit.js';
import { exportRoutes } from './site-export.js';
import { funnelReportRoutes } from './site-funnel-report.js';
import { goalRoutes } from './site-goals.js';
import { importRoutes } from './site-imports.js';
import { memberRoutes } from './site-members.js';
import { siteSettingsRoutes } from './site-settings.js';
import { siteRoutes } from './sites.js';
import { termsRoutes } from './terms.js';
import { trackerScriptRoutes } from './tracker-script.js';
import { webSessionRoutes } from './web-session.js';
import { widgetScriptRoutes } from './widget-scripts.js';
import { widgetRoutes } from './widgets.js';

/** Registers the OpenAPI plugin, then every route it describes, then the pages and scripts. */
export async function registerRoutes(app: GatewayApp, options: GatewayOptions, caches: GatewayCaches): Promise<void> {
  await registerOpenApi(app, { publicUrl: options.publicUrl, version: options.version, termsUrl: options.terms.url });
  await app.register(openApiDocumentRoute);
  await app.register(termsRoutes, { externalUrl: options.terms.externalUrl, version: options.terms.version });
  await app.register(healthRoutes, { services: options.services, ownStores: options.ownStores, deadlineMs: options.grpcDeadlineMs });
  const deadlineMs = options.grpcDeadlineMs;
  const { announceAccessChange } = caches;
  const identity = clientOf(options.services, 'identity');
  await app.register(registrationRoutes, { identity, deadlineMs });
  await app.register(webSessionRoutes, { identity, sessionCache: caches.sessionCache, forgetSessions: (ids) => ids.forEach(caches.forgetKey), deadlineMs });
  const sites = clientOf(options.services, 'sites');
  await app.register(keyRoutes, { identity, sites, deadlineMs });
  await app.register(billingRoutes, { identity, deadlineMs, announceAccessChange });
  await app.register(siteRoutes, {
    sites,
    identity,
    deadlineMs,
    publicUrl: options.publicUrl,
    forgetWidgetSite: caches.forgetWidgetSite,
    forgetReportSite: (siteId) => caches.reportCache.forgetSite(siteId),
  });
  await app.register(memberRoutes, { sites, identity, deadlineMs, announceAccessChange });
  await app.register(goalRoutes, { sites, deadlineMs });
  await app.register(auditRoutes, { sites, deadlineMs });
  await app.register(annotationRoutes, { sites, identity, deadlineMs });
  await app.register(collectRoutes, { bus: options.bus, eventShards: options.eventShards ?? DEFAULT_EVENT_SHARDS, keys: caches.trackingKeys });
  const settings = clientOf(options.services, 'settings');
  const scriptBuilder = clientOf(options.services, 'script-builder');
  const scriptCache = caches.scriptCache;
  await app.register(trackerScriptRoutes, { sites, settings, scriptBuilder, cache: scriptCache, publicUrl: options.publicUrl, deadlineMs });
  const query = clientOf(options.services, 'query');
  await app.register(siteSettingsRoutes, { sites, settings, scriptBuilder, identity, query, scriptCache, deadlineMs });
  const reports = new ReportQueries(query, caches.answers, deadlineMs);
  await app.register(queryRoutes, { sites, identity, reports, deadlineMs, cache: caches.reportCache });
  await app.register(funnelReportRoutes, { sites, identity, reports, deadlineMs, cache: caches.reportCache });
  const lookup = shareLookup({ sites, identity, settings, deadlineMs, cache: caches.shareSites });
  const rateLimit = new ClientRateLimit(options.shareRateLimitPerMinute ?? 600);
  const widgetOptions = options.widgets ?? WIDGET_DEFAULTS;
  await app.register(widgetRoutes, {
    sites,
    identity,
    deadlineMs,
    widgetSites: caches.widgetSites,
    answers: new WidgetAnswers(reports),
    cache: caches.widgetCache,
    clientLimit: new ClientRateLimit(widgetOptions.rateLimitPerMinute),
    keyLimit: new ClientRateLimit(widgetOptions.keyRateLimitPerMinute),
  });
  const sharedAnnotations = (request: FastifyRequest, siteId: number, window: sitesV1.AnnotationWindow) =>
    callUnary(sites, sites.listSharedAnnotations, 'Sites/ListSharedAnnotations', { siteId, window }, { requestId: request.id, deadlineMs });
  await app.register(shareRoutes, { lookup, reports, rateLimit, annotations: sharedAnnotations });
  await app.register(webRoutes, { dist: await dashboardBuild(options), lookup, rateLimit });
  await app.register(widgetScriptRoutes, { dist: await widgetsBuild(options) });
  await app.register(exportRoutes, { sites, query: streamClientOf(options.services, 'query'), deadlineMs, perHour: options.exportRateLimitPerHour ?? 30 });
  // the upload and DeleteImport share that channel, so both reach the replica holding the import (ingest pins one)
  await app.register(importRoutes, {
    sites,
    ingest: streamClientOf(options.services, 'ingest'),
    deadlineMs,
    maxBytes: options.importMaxBytes,
    announceDataChange: caches.announceDataChange,
  });
  for (const extra of options.extraRoutes ?? []) await app.register(extra);
}

/** A missing or broken build (one being rewritten, say) costs the pages or scripts, never the API. */
async function loadBuild<T>(
  log: GatewayOptions['log'],
  dir: string | undefined,
  load: (dir: string) => Promise<T | undefined>,
  field: 'dashboard_dir' | 'widgets_dir',
  texts: { notBuilt: string; unreadable: string },
): Promise<T | undefined> {
  if (!dir) return undefined;
  try {
    const dist = await load(dir);
    if (!dist) log.warn({ [field]: dir }, texts.notBuilt);
    return dist;
  } catch (error) {
    log.error({ err: error, [field]: dir }, texts.unreadable);
    return undefined;
  }
}

function dashboardBuild(options: Pick<GatewayOptions, 'dashboardDir' | 'log'>): Promise<DashboardDist | undefined> {
  return loadBuild(options.log, options.dashboardDir, loadDashboardDist, 'dashboard_dir', {
    notBuilt: 'the dashboard is not built (no manifest.json): its pages answer 503 until `npm run build:dashboard` and a restart',
    unreadable: 'the dashboard build is unreadable: its pages answer 503 until it is rebuilt and the gateway restarted',
  });
}

function widgetsBuild(options: Pick<GatewayOptions, 'widgetsDir' | 'log'>): Promise<WidgetsDist | undefined> {
  return loadBuild(options.log, options.widgetsDir, loadWidgetsDist, 'widgets_dir', {
    notBuilt: 'the widgets are not built (no manifest.json): /widgets/v1/*.js answer 404 until `npm run build:widgets` and a restart',
    unreadable: 'the widgets build is unreadable: /widgets/v1/*.js answer 404 until it is rebuilt (`npm run build:widgets`) and the gateway restarted',
  });
}
