import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { scriptBuilderV1, settingsV1, sitesV1 } from '@sightline/proto';
import type { ServedScript, TrackerScriptCache } from '../caches/tracker-script-cache.js';

export interface TrackerScriptRouteOptions {
  sites: sitesV1.SitesServiceClient;
  settings: settingsV1.SettingsServiceClient;
  scriptBuilder: scriptBuilderV1.ScriptBuilderServiceClient;
  cache: TrackerScriptCache;
  publicUrl: string;
  deadlineMs: number;
}

/** Browsers and CDNs may keep the script this long; a settings change shows after it. */
const MAX_AGE_SECONDS = 60;
const SCRIPT_NAME = /^([A-Za-z0-9]{8,64})\.js$/;

/**
 * `GET /js/<tracking key>.js`: the site's tracker, built for its feature selection,
 * carrying its tracking key and the collection endpoint. ETag + If-None-Match give
 * 304s; a settings change changes the bytes and so the ETag.
 */
export const trackerScriptRoutes: FastifyPluginAsyncZod<TrackerScriptRouteOptions> = async (app, options) => {
  const { cache } = options;
  const endpoint = `${options.publicUrl}/api/event`;

  async function build(trackingKey: string, requestId: string): Promise<ServedScript> {
    const call = { requestId, deadlineMs: options.deadlineMs };
    const site = await callUnary(options.sites, options.sites.getSiteByTrackingKey, 'Sites/GetSiteByTrackingKey', { trackingKey }, call);
    const tracking = await callUnary(options.settings, options.settings.getTracking, 'Settings/GetTracking', { siteId: site.siteId }, call);
    const built = await callUnary(
      options.scriptBuilder,
      options.scriptBuilder.buildScript,
      'ScriptBuilder/BuildScript',
      { features: tracking.enabled, trackingKey, endpoint },
      call,
    );
    return { javascript: built.javascript, etag: `"${built.etag}"` };
  }

  app.get('/js/:script', { config: { write: false }, schema: { hide: true, params: z.object({ script: z.string().max(80) }) } }, async (request, reply) => {
    const trackingKey = SCRIPT_NAME.exec(request.params.script)?.[1];
    if (!trackingKey) throw new ApiError('not_found', 'No such script.');
    let served = cache.get(trackingKey);
    if (!served) {
      served = await build(trackingKey, request.id).catch((error: unknown) => {
        throw error instanceof ApiError && error.code === 'unknown_site' ? new ApiError('not_found', 'No such script.') : error;
      });
      cache.set(trackingKey, served);
    }
    reply
      .header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`)
      .header('etag', served.etag)
      .header('access-control-allow-origin', '*')
      .type('application/javascript; charset=utf-8');
    if (request.headers['if-none-match'] === served.etag) return reply.code(304).send();
    return reply.send(served.javascript);
  });
};
