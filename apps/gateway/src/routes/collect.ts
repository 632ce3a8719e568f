import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { collectedEventShard, collectedSubject, StreamFullError, type Bus, type SubjectPayloads } from '@sightline/bus';
import { AccessLogThrottle } from '../edge/access-log-throttle.js';
import { clientInfo } from '../edge/client-info.js';
import { parseJsonBody } from '../edge/json-body.js';
import { sendError } from '../edge/render-error.js';
import { errorResponses } from '../schemas/error-responses.js';
import { TrackerPayload } from '../schemas/collected-event.js';
import { checkTrackerPayloadFast } from '@sightline/events-schema';
import type { TrackingKeyCheck } from '../caches/tracking-key-check.js';

export interface CollectRouteOptions {
  bus: Bus;
  /** EVENT_SHARDS: each event goes to `events.collected.<shard of its visitor>` */
  eventShards: number;
  /** refuses keys no site has, from a cache (see libs/tracker/README.md, "Tracking") */
  keys: TrackingKeyCheck;
}

/** A tracker event is small; anything bigger is not one. */
const EVENT_BODY_LIMIT = 8 * 1024;

/**
 * The body check of this route: the hand-written fast path for the common valid
 * event, zod (the same schema, the same 400 wording) for everything else.
 */
const trackerBodyValidator: FastifySchemaCompiler<unknown> = (route) => {
  const zodCheck = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.httpPart !== 'body') return zodCheck;
  return (body: unknown) => {
    const value = checkTrackerPayloadFast(body);
    return value ? { value } : zodCheck(body);
  };
};

/** Carries nothing per request (the request id is added when rendered): built once, not per refused event. */
const UNKNOWN_SITE = new ApiError('unknown_site', 'No site has this tracking key.');
/** Seconds a tracker or proxy is told to wait when the event could not be queued. */
const QUEUE_RETRY_AFTER_SECONDS = 5;
const BACKLOG_FULL = new ApiError('unavailable', 'Collection is paused: the backlog of events waiting for ingestion is full. Retry later.', {
  retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS,
});
const NOT_QUEUED = new ApiError('unavailable', 'The event could not be queued for ingestion. Retry later.', { retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS });

/**
 * The 202 has no content, like the 204s: fastify writes the headers alone, in one
 * write (`send(null)` would serialize `null` under a JSON type and add a body chunk).
 * The cast: the typed reply only knows the schema's value.
 */
const NO_CONTENT = undefined as unknown as null;

/**
 * `POST /api/event`: the tracker's collection endpoint. Validated, stamped with
 * server time, client IP (X-Forwarded-For only from TRUSTED_PROXIES) and
 * User-Agent, and published to the EVENTS stream BEFORE the 202: an accepted event
 * is durably stored (JetStream, or the local journal) even if this process dies
 * right after answering. Ingest turns the messages into stored events. The subject
 * is the visitor's shard (tracking key + session marker, else IP + UA), so one
 * ingest replica sees all of a visitor's events.
 */
export const collectRoutes: FastifyPluginAsyncZod<CollectRouteOptions> = async (app, { bus, eventShards, keys }) => {
  // a bus that refuses refuses every event: one warning per cause and 10 s, with the count of the rest
  const refusalLog = new AccessLogThrottle(1, 10_000);
  // The tracker posts text/plain (no CORS preflight); read it as JSON ourselves.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: EVENT_BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.options('/api/event', { config: { write: false }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', '86400')
      .code(204)
      .send(),
  );

  app.post(
    '/api/event',
    {
      bodyLimit: EVENT_BODY_LIMIT,
      // collection is tracking, not the management API: the write switch does not stop it
      config: { write: false },
      validatorCompiler: trackerBodyValidator,
      schema: {
        summary: 'Collect a tracker event',
        description:
          'Sent by the tracker script as text/plain JSON (no CORS preflight); application/json is accepted too. Answers 202 once the event is durably queued for ingestion. ' +
          'A tracking key no site has answers 404 `unknown_site` (tracking keys are public, in every page’s script URL, so this reveals nothing; it tells a site owner their snippet is wrong). ' +
          'While the sites service cannot answer, events are accepted and ingest decides. ' +
          'An event that cannot be queued (the bus unreachable, or the backlog waiting for ingestion at its limit) answers 503 `unavailable` with Retry-After; it was not stored.',
        tags: ['collection'],
        body: TrackerPayload,
        response: { 202: z.null().describe('Accepted; no content.'), ...errorResponses(400, 404, 413, 503) },
      },
    },
    async (request, reply) => {
      reply.header('access-control-allow-origin', '*');
      // a cached verdict is a synchronous lookup: no await on the common path
      const verdict = keys.peek(request.body.k) ?? (await keys.verdict(request.body.k, request.id));
      if (verdict === 'unknown') return sendError(request, reply, UNKNOWN_SITE);
      const { ip, userAgent } = clientInfo(request);
      // assign, then three stores: a spread with extra keys left V8's fast path (~8 µs an event)
      const message = Object.assign({} as SubjectPayloads['events.collected.*'], request.body);
      message.ts = new Date().toISOString();
      message.ip = ip;
      message.ua = userAgent;
      try {
        await bus.publish(collectedSubject(collectedEventShard(message, eventShards)), message);
      } catch (error) {
        // not stored, so not accepted: 503 (retry later), never a 202 for an event that is not queued
        const full = error instanceof StreamFullError;
        const admitted = refusalLog.admit(full ? 'stream full' : 'publish failed', 503);
        if (admitted)
          request.log.warn(
            { err: error, not_queued_since_last_warning: admitted.suppressed },
            full ? 'event not queued: the events stream is full (ingest down or behind)' : 'event not queued: the bus refused the publish',
          );
        return sendError(request, reply, full ? BACKLOG_FULL : NOT_QUEUED);
      }
      return reply.code(202).send(NO_CONTENT);
    },
  );
};
