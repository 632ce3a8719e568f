import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, queryV1, scriptBuilderV1, settingsV1, sitesV1 } from '@sightline/proto';
import { actorOf, auditOf, callOptions } from '../edge/request-context.js';
import { siteForRequest } from '../reports/site-access.js';
import type { TrackerScriptCache } from '../caches/tracker-script-cache.js';
import { errorResponses } from '../schemas/error-responses.js';
import { SiteParams } from '../schemas/sites-schemas.js';
import {
  BlockedIpsBody,
  BlockedIpsObject,
  CountriesBody,
  CountriesObject,
  FilterWriteAnswer,
  HostnamesObject,
  PublicDashboardObject,
  PutTrackingBody,
  TrackingSettingsObject,
} from '../schemas/settings-schemas.js';

export interface SettingsRouteOptions {
  sites: sitesV1.SitesServiceClient;
  settings: settingsV1.SettingsServiceClient;
  scriptBuilder: scriptBuilderV1.ScriptBuilderServiceClient;
  identity: identityV1.IdentityServiceClient;
  query: queryV1.QueryServiceClient;
  scriptCache: TrackerScriptCache;
  deadlineMs: number;
}

const security = [{ apiKey: [] }];
type Need = 'read' | 'manage';
/** "sent events in the last 7 days" */
const RECENT_ACTIVITY_MS = 7 * 86_400_000;

/**
 * Tracking settings and counting filters. The sites service decides reach and role
 * (one gate for every per-site route); the settings service owns the values and
 * their rules; the script builder owns the feature catalogue and its sizes.
 */
export const siteSettingsRoutes: FastifyPluginAsyncZod<SettingsRouteOptions> = async (
  app,
  { sites, settings, scriptBuilder, identity, query, scriptCache, deadlineMs },
) => {
  let catalogue: scriptBuilderV1.CatalogueEntry[] | undefined;

  const siteFor = (request: FastifyRequest, rawSiteId: string, need: Need) => siteForRequest(sites, request, rawSiteId, need, deadlineMs);

  /** Who writes and from where: the same actor and audit context the sites service gets. */
  const writerOf = (request: FastifyRequest) => ({ actor: actorOf(request), audit: auditOf(request) });

  async function trackingObject(request: FastifyRequest, tracking: settingsV1.TrackingSettings) {
    catalogue ??= (await callUnary(scriptBuilder, scriptBuilder.getCatalogue, 'ScriptBuilder/GetCatalogue', {}, callOptions(request, deadlineMs))).entries;
    const on = new Set(tracking.enabled);
    return {
      site_id: tracking.siteId,
      version: tracking.version,
      bundle: tracking.bundle,
      enabled: tracking.enabled,
      features: catalogue.map((f) => ({
        id: f.id,
        label: f.label,
        enabled: on.has(f.id),
        locked: f.locked,
        default: f.default,
        ...(f.requires.length ? { requires: f.requires } : {}),
        size_br: f.sizeBr,
      })),
    };
  }

  /** The owner's plan decides whether a hobby site may hide its dashboard. */
  async function accountPaid(request: FastifyRequest, site: sitesV1.Site): Promise<boolean> {
    const plan = await callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId: site.ownerAccountId }, callOptions(request, deadlineMs));
    return plan.paid;
  }

  const manage = { write: true, auth: { permission: 'sites:write' as const } };
  const manageRead = { write: false, auth: { permission: 'sites:write' as const } };
  const read = { write: false, auth: { permission: 'stats:read' as const } };
  const base = '/api/v1/sites/:id/settings';

  app.get(
    `${base}/tracking`,
    {
      config: manageRead,
      schema: {
        summary: 'Tracking settings',
        description: 'Needs Manage sites (stricter than other reads).',
        tags: ['settings'],
        security,
        params: SiteParams,
        response: { 200: TrackingSettingsObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'read');
      return trackingObject(
        request,
        await callUnary(settings, settings.getTracking, 'Settings/GetTracking', { siteId: site.siteId }, callOptions(request, deadlineMs)),
      );
    },
  );

  app.put(
    `${base}/tracking`,
    {
      config: manage,
      schema: {
        summary: 'Choose what the tracker collects',
        description:
          'Replaces the selection wholesale; locked features stay on; an unmet dependency answers 400 naming it. The site’s script is rebuilt; visitors see the change once caches expire.',
        tags: ['settings'],
        security,
        params: SiteParams,
        body: PutTrackingBody,
        response: { 200: TrackingSettingsObject, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const tracking = await callUnary(
        settings,
        settings.putTracking,
        'Settings/PutTracking',
        { siteId: site.siteId, ...writerOf(request), features: request.body.features },
        callOptions(request, deadlineMs),
      );
      scriptCache.forget(site.trackingKey);
      return trackingObject(request, tracking);
    },
  );

  app.get(
    `${base}/hostnames`,
    {
      config: read,
      schema: {
        summary: 'Hostname filter',
        tags: ['settings'],
        security,
        params: SiteParams,
        response: { 200: HostnamesObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const answer = await callUnary(settings, settings.getHostnames, 'Settings/GetHostnames', { siteId: site.siteId }, callOptions(request, deadlineMs));
      return { allowed: answer.allowed, blocked: answer.blocked };
    },
  );

  app.put(
    `${base}/hostnames`,
    {
      config: manage,
      schema: {
        summary: 'Replace the hostname filter',
        description:
          'An empty `allowed` list means no restriction. 409 site_domain_blocked when the lists would block the site’s own domain while it is sending events.',
        tags: ['settings'],
        security,
        params: SiteParams,
        body: HostnamesObject,
        response: { 200: FilterWriteAnswer, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      // a filter that would cut off a live site's own traffic is refused: ask the events store
      const since = new Date(Date.now() - RECENT_ACTIVITY_MS).toISOString();
      const activity = await callUnary(query, query.siteActivity, 'Query/SiteActivity', { siteId: site.siteId, since }, callOptions(request, deadlineMs));
      const answer = await callUnary(
        settings,
        settings.putHostnames,
        'Settings/PutHostnames',
        {
          siteId: site.siteId,
          ...writerOf(request),
          allowed: request.body.allowed,
          blocked: request.body.blocked,
          siteHost: new URL(site.name).hostname,
          siteRecentlyActive: activity.events > 0,
        },
        callOptions(request, deadlineMs),
      );
      return { site_id: answer.siteId, count: answer.count };
    },
  );

  app.get(
    `${base}/blocked-ips`,
    {
      config: read,
      schema: {
        summary: 'Blocked IP addresses',
        tags: ['settings'],
        security,
        params: SiteParams,
        response: { 200: BlockedIpsObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const answer = await callUnary(settings, settings.getBlockedIps, 'Settings/GetBlockedIps', { siteId: site.siteId }, callOptions(request, deadlineMs));
      return { blocked_ips: answer.blockedIps };
    },
  );

  app.put(
    `${base}/blocked-ips`,
    {
      config: manage,
      schema: {
        summary: 'Replace the blocked IP list',
        description: 'Body: a bare array of addresses.',
        tags: ['settings'],
        security,
        params: SiteParams,
        body: BlockedIpsBody,
        response: { 200: FilterWriteAnswer, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const answer = await callUnary(
        settings,
        settings.putBlockedIps,
        'Settings/PutBlockedIps',
        { siteId: site.siteId, ...writerOf(request), blockedIps: request.body },
        callOptions(request, deadlineMs),
      );
      return { site_id: answer.siteId, count: answer.count };
    },
  );

  app.get(
    `${base}/countries`,
    {
      config: read,
      schema: {
        summary: 'Country filter',
        tags: ['settings'],
        security,
        params: SiteParams,
        response: { 200: CountriesObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const answer = await callUnary(settings, settings.getCountries, 'Settings/GetCountries', { siteId: site.siteId }, callOptions(request, deadlineMs));
      const entries = (list: settingsV1.CountryEntry[]) => list.map((c) => ({ code: c.code, created_at: c.createdAt }));
      return { allowed: entries(answer.allowed), blocked: entries(answer.blocked) };
    },
  );

  app.put(
    `${base}/countries`,
    {
      config: manage,
      schema: {
        summary: 'Replace the country filter',
        description: 'ISO 3166-1 alpha-2 codes. An empty `allowed` list means no restriction.',
        tags: ['settings'],
        security,
        params: SiteParams,
        body: CountriesBody,
        response: { 200: FilterWriteAnswer, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const answer = await callUnary(
        settings,
        settings.putCountries,
        'Settings/PutCountries',
        { siteId: site.siteId, ...writerOf(request), allowed: request.body.allowed, blocked: request.body.blocked },
        callOptions(request, deadlineMs),
      );
      return { site_id: answer.siteId, count: answer.count };
    },
  );

  app.get(
    `${base}/public-dashboard`,
    {
      config: read,
      schema: {
        summary: 'Public dashboard setting',
        tags: ['settings'],
        security,
        params: SiteParams,
        response: { 200: PublicDashboardObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'read');
      const answer = await callUnary(
        settings,
        settings.getPublicDashboard,
        'Settings/GetPublicDashboard',
        { siteId: site.siteId, siteHobby: site.hobby, accountPaid: await accountPaid(request, site) },
        callOptions(request, deadlineMs),
      );
      return { enabled: answer.enabled };
    },
  );

  app.put(
    `${base}/public-dashboard`,
    {
      config: manage,
      schema: {
        summary: 'Turn the public dashboard on or off',
        description:
          '`enabled` must be sent. Off is refused (409 hobby_always_public) for a hobby site whose account has no paid subscription; on is never refused.',
        tags: ['settings'],
        security,
        params: SiteParams,
        body: PublicDashboardObject,
        response: { 200: PublicDashboardObject, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const site = await siteFor(request, request.params.id, 'manage');
      const answer = await callUnary(
        settings,
        settings.putPublicDashboard,
        'Settings/PutPublicDashboard',
        { siteId: site.siteId, ...writerOf(request), enabled: request.body.enabled, siteHobby: site.hobby, accountPaid: await accountPaid(request, site) },
        callOptions(request, deadlineMs),
      );
      return { enabled: answer.enabled };
    },
  );
};
