import { Metadata } from '@grpc/grpc-js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pipeline, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { z } from 'zod';
import { ApiError, fromGrpcError } from '@sightline/errors';
import { callUnary, REQUEST_ID_METADATA_KEY } from '@sightline/grpc-kit';
import type { queryV1, sitesV1 } from '@sightline/proto';
import { injectTraceContext } from '@sightline/telemetry';
import { principalOf } from '../auth/authenticate.js';
import { reportSiteMessage } from '../reports/report-queries.js';
import { actorOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { SiteParams, siteIdOf } from '../schemas/sites-schemas.js';
import { ClientRateLimit } from '../share/client-rate-limit.js';

export interface ExportRouteOptions {
  sites: sitesV1.SitesServiceClient;
  query: queryV1.QueryServiceClient;
  deadlineMs: number;
  /** EXPORT_RATE_LIMIT_PER_HOUR per key (or dashboard session); 0 = no limit */
  perHour: number;
}

const FORMATS = ['ndjson', 'csv', 'parquet'] as const;
type Format = (typeof FORMATS)[number];

const ExportQuerystring = z.object({
  date_range: z
    .string()
    .max(40)
    .describe(
      '`Nd`, `month`, `realtime`, or `start,end` (two YYYY-MM-DD dates, at most 366 days apart), in the site’s time zone: the same forms as POST /query.',
    ),
  format: z.enum(FORMATS).describe('`ndjson` (the import format, gzipped), `csv` (the same columns, gzipped) or `parquet`.'),
});

/** What each format is sent as: text formats as a gzip file (`.gz`, application/gzip), Parquet as is (it compresses its own columns). */
const MEDIA: Record<Format, { type: string; extension: string; gzip: boolean }> = {
  ndjson: { type: 'application/gzip', extension: 'ndjson.gz', gzip: true },
  csv: { type: 'application/gzip', extension: 'csv.gz', gzip: true },
  parquet: { type: 'application/vnd.apache.parquet', extension: 'parquet', gzip: false },
};

/** An export may run long: the stream's own deadline, not the unary one. */
const EXPORT_DEADLINE_MS = 60 * 60_000;
/** The rows sent, after the last chunk (chunked transfer coding's trailer). */
const ROWS_TRAILER = 'x-export-rows';
/** The rows in the window when the export started: a progress bar's denominator. */
const COUNTED_HEADER = 'x-export-rows-counted';

const fileName = (siteId: number, start: string, end: string, extension: string) =>
  `sightline-site-${siteId}-${start}-to-${end}`.replace(/[^\w.-]/g, '-') + `.${extension}`;

/**
 * GET /api/v1/sites/{id}/export: a site's events in a window, one row per event in
 * the import format with its visit's attributes (see apps/query/src/export). The
 * query service produces the file page by page over a server-streaming RPC; this
 * route gzips text formats and forwards the bytes with flow control end to end, so
 * neither process holds the export whole. Headers go out only once the service has
 * accepted the request (its first message), so a bad window is still a 400.
 */
export const exportRoutes: FastifyPluginAsyncZod<ExportRouteOptions> = async (app, { sites, query, deadlineMs, perHour }) => {
  // an hour's allowance as a bucket: ClientRateLimit counts per minute, so its clock runs 60 times slower
  const limit = new ClientRateLimit(perHour, () => performance.now() / 60);

  app.get(
    '/api/v1/sites/:id/export',
    {
      config: { write: false, auth: { permission: 'stats:read' as const, session: true } },
      schema: {
        summary: 'Export the site’s events',
        description: [
          'Every event of the window, one row each, in the event import format (the columns of `POST /sites/{id}/imports`) with its visit’s attributes on every row: an NDJSON export loads back through the import unchanged. No IP address and no User-Agent is exported (none is stored); `visitor_id` is the stored daily-salted hash.',
          'Text formats come as a gzip file (`Content-Type: application/gzip`, filename ending `.ndjson.gz` or `.csv.gz`; no Content-Encoding, so clients save exactly what was sent); Parquet as is. `Content-Disposition` names the file. The body is chunked: `X-Export-Rows-Counted` gives the rows in the window when the export started (for progress), and the trailer `X-Export-Rows` the rows sent; a body without that trailer was cut short.',
          `A visit crossing the window's edges is exported only within it. Rate limited per key (\`EXPORT_RATE_LIMIT_PER_HOUR\`, 30 by default): 429 \`rate_limited\` with Retry-After.`,
        ].join('\n\n'),
        tags: ['export'],
        security: [{ apiKey: [] }],
        params: SiteParams,
        querystring: ExportQuerystring,
        response: { 200: z.any().describe('The file (see the description).'), ...errorResponses(400, 401, 403, 404, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const siteId = siteIdOf(request.params.id);
      const retryAfterSeconds = limit.take(principalOf(request).keyId);
      if (retryAfterSeconds !== undefined)
        throw new ApiError('rate_limited', `At most ${perHour} exports per hour per key (EXPORT_RATE_LIMIT_PER_HOUR); retry after the time in Retry-After.`, {
          retryAfterSeconds,
        });
      const { site } = await callUnary(sites, sites.getSite, 'Sites/GetSite', { actor: actorOf(request), siteId }, callOptions(request, deadlineMs));
      const { format, date_range: rawRange } = request.query;
      const dateRange = rawRange.includes(',') ? JSON.stringify(rawRange.split(',')) : rawRange;

      const metadata = new Metadata();
      metadata.set(REQUEST_ID_METADATA_KEY, request.id);
      injectTraceContext(metadata);
      const context = reportSiteMessage({ siteId, timezone: site!.timezone, weekStart: site!.weekStart, goals: [] });
      const call = query.exportEvents({ site: context, dateRange, format }, metadata, { deadline: Date.now() + EXPORT_DEADLINE_MS });
      const chunks = call[Symbol.asyncIterator]() as AsyncIterator<queryV1.ExportChunk>;
      let first: IteratorResult<queryV1.ExportChunk>;
      try {
        first = await chunks.next();
      } catch (error) {
        throw fromGrpcError(error);
      }
      const head = first.done ? undefined : first.value.head;
      if (!head) throw new ApiError('internal');
      // the client went away: stop the service producing pages nobody reads
      reply.raw.on('close', () => call.cancel());

      let rows = 0;
      const bytes = Readable.from(
        (async function* () {
          for (;;) {
            let next: IteratorResult<queryV1.ExportChunk>;
            try {
              next = await chunks.next();
            } catch (error) {
              // the headers are gone: the client sees the body cut short (no trailer); the log says why
              request.log.warn(
                { err: fromGrpcError(error), grpc_code: (error as { code?: number }).code, grpc_details: (error as { details?: string }).details, rows },
                'export stopped by the query service',
              );
              throw error;
            }
            if (next.done) return;
            rows += next.value.rows;
            if (next.value.data.length > 0) yield Buffer.from(next.value.data);
          }
        })(),
        { objectMode: false },
      );
      const media = MEDIA[format];
      reply
        .header('content-type', media.type)
        .header('content-disposition', `attachment; filename="${fileName(siteId, head.dateRangeStart, head.dateRangeEnd, media.extension)}"`)
        .header('cache-control', 'no-store')
        .header(COUNTED_HEADER, String(head.rowsCounted))
        .trailer(ROWS_TRAILER, async () => String(rows));
      if (!media.gzip) return reply.send(bytes);
      // pipeline, not pipe: a failure mid-export destroys the response (no trailer) instead of ending it cleanly
      return reply.send(pipeline(bytes, createGzip(), () => {}));
    },
  );
};
