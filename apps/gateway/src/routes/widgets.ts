import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { assertReportsReadable } from '../reports/report-access.js';
import { callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import type { ClientRateLimit } from '../share/client-rate-limit.js';
import type { WidgetAnswerCache } from '../widgets/widget-answer-cache.js';
import type { WidgetAnswers } from '../widgets/widget-answers.js';
import { WidgetAnswerObject, WidgetParams, WidgetQuerystring } from '../widgets/widget-schemas.js';
import { unknownWidgetKey, type WidgetSites } from '../widgets/widget-sites.js';
import { WIDGET_TYPE_LIST, isWidgetType } from '../widgets/widget-types.js';
import { widgetWindowOf } from '../widgets/widget-window.js';

export interface WidgetRouteOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  deadlineMs: number;
  widgetSites: WidgetSites;
  answers: WidgetAnswers;
  cache: WidgetAnswerCache;
  /** WIDGET_RATE_LIMIT_PER_MINUTE, per client address (every request) */
  clientLimit: ClientRateLimit;
  /** WIDGET_KEY_RATE_LIMIT_PER_MINUTE, per site (answers computed, not those served from the cache) */
  keyLimit: ClientRateLimit;
  now?: () => number;
}

/** The shape a key must have before anything is asked (the sites service checks it again). */
const WIDGET_KEY = /^wk_[A-Za-z0-9_-]{43}$/;

/**
 * GET /api/v1/widgets/{type}: the embeddable widgets' data. Public and read-only: no
 * cookie, no API key — the widget key names the site and grants this route alone. CORS
 * open without credentials (a simple GET: browsers send no preflight); answers are
 * aggregates only, reused per (site, type, window) for WIDGET_CACHE_TTL_MS.
 */
export const widgetRoutes: FastifyPluginAsyncZod<WidgetRouteOptions> = async (app, options) => {
  const { sites, identity, deadlineMs, widgetSites, answers, cache, clientLimit, keyLimit } = options;
  const now = options.now ?? Date.now;

  // every answer of this plugin, refusals included, so a page's script can read the status
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('cross-origin-resource-policy', 'cross-origin');
    reply.header('cache-control', reply.statusCode === 200 ? 'public, max-age=15' : 'no-store');
    return payload;
  });

  app.get(
    '/api/v1/widgets/:type',
    {
      config: { write: false },
      schema: {
        summary: 'A widget’s data',
        description:
          'What the embeddable widget of that type draws, for the site its key names: aggregates only (counts per minute, country and city point; no paths, referrers or visitor ids), times to the minute in UTC. ' +
          'CORS open (`Access-Control-Allow-Origin: *`, no credentials); `Cache-Control: public, max-age=15`. Answers are reused per site, type and window for `WIDGET_CACHE_TTL_MS` (up to 60 s). ' +
          'Rate limited per client address (`WIDGET_RATE_LIMIT_PER_MINUTE`) and per key for answers not already cached (`WIDGET_KEY_RATE_LIMIT_PER_MINUTE`): 429 `rate_limited` with Retry-After. ' +
          'A site whose owner’s plan closed its reports answers 403 like the share routes. The key is in the snippet of GET /sites/{id}/snippet?type=…; POST /sites/{id}/widget-key/rotate replaces it.',
        tags: ['widgets'],
        security: [],
        params: WidgetParams,
        querystring: WidgetQuerystring,
        response: { 200: WidgetAnswerObject, ...errorResponses(400, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const retryAfterSeconds = clientLimit.take(request.ip);
      if (retryAfterSeconds !== undefined)
        throw new ApiError('rate_limited', 'Too many widget requests from this address; retry after the time in Retry-After.', { retryAfterSeconds });
      const type = request.params.type;
      if (!isWidgetType(type)) throw new ApiError('invalid_request', `type must be one of ${WIDGET_TYPE_LIST}.`);
      const window = widgetWindowOf(type, request.query.window);
      const key = request.query.key ?? '';
      if (!WIDGET_KEY.test(key)) throw unknownWidgetKey();
      const options_ = callOptions(request, deadlineMs);
      const widget = await widgetSites.resolve(key, {
        siteByKey: (k) => callUnary(sites, sites.getSiteByWidgetKey, 'Sites/GetSiteByWidgetKey', { key: k }, options_),
        getPlan: (accountId) => callUnary(identity, identity.getPlan, 'Identity/GetPlan', { accountId }, options_),
      });
      assertReportsReadable(widget.plan);
      return cache.answer(widget.site.siteId, type, window, () => {
        const wait = keyLimit.take(String(widget.site.siteId));
        if (wait !== undefined)
          return Promise.reject(
            new ApiError('rate_limited', 'Too many widget answers computed for this key; retry after the time in Retry-After.', { retryAfterSeconds: wait }),
          );
        return answers.answer(request, widget.site, type, window, now());
      });
    },
  );
};
