import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { ingestV1, sitesV1 } from '@sightline/proto';
import type { Readable } from 'node:stream';
import { DRAIN_FACTOR, drainBody, payloadTooLarge, streamUpload } from '../services/import-upload.js';
import { actorOf, auditOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { ImportCreated, ImportFormatQuery, ImportObject, toImportObject } from '../schemas/imports-schemas.js';
import { SiteParams, siteIdOf } from '../schemas/sites-schemas.js';

export interface ImportRouteOptions {
  sites: sitesV1.SitesServiceClient;
  ingest: ingestV1.IngestServiceClient;
  deadlineMs: number;
  /** IMPORT_MAX_BYTES */
  maxBytes: number;
  /** an import's rows were deleted: drop the site's cached report answers here and on every replica */
  announceDataChange?: (siteId: number) => Promise<void>;
}

const security = [{ apiKey: [] }];
const NDJSON = 'application/x-ndjson';
/** An upload of IMPORT_MAX_BYTES over a slow link: the stream's deadline, not the unary one. */
const UPLOAD_DEADLINE_MS = 30 * 60_000;
const ImportParams = SiteParams.extend({ import_id: z.string().max(20) });

/** The id in the path, or 0 for one that cannot exist (not digits, or beyond 2^53: the wire's numbers stop there). */
function possibleImportId(raw: string): number {
  return /^[1-9][0-9]{0,15}$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : 0;
}

function importIdOf(raw: string): number {
  const id = possibleImportId(raw);
  if (id === 0) throw new ApiError('import_not_found', 'No such import on this site.');
  return id;
}

/**
 * Imports of history from another analytics tool. The job record lives in sites
 * (reach rules, audit); the body streams to ingest, which parses, stages, sessionizes
 * and writes the rows and reports progress back to the job.
 */
export const importRoutes: FastifyPluginAsyncZod<ImportRouteOptions> = async (app, { sites, ingest, deadlineMs, maxBytes, announceDataChange }) => {
  // Only NDJSON reaches these routes, as the raw stream (never buffered whole); this
  // plugin's parsers do not leak to other routes (fastify encapsulation).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload));
  app.addContentTypeParser('*', (_request, _payload, done) =>
    done(new ApiError('invalid_request', `Send the events as ${NDJSON} (one JSON object per line).`), undefined),
  );

  const read = { write: false, auth: { permission: 'stats:read' as const } };
  const write = { write: true, auth: { permission: 'sites:write' as const } };

  app.post(
    '/api/v1/sites/:id/imports',
    {
      config: write,
      bodyLimit: maxBytes,
      schema: {
        summary: 'Import event history',
        description:
          `NDJSON body (${NDJSON}), one event per line, at most IMPORT_MAX_BYTES (default 100 MB; split larger histories into several imports). ` +
          'Answers 202 once every line is read and the valid ones are staged; sessionizing and writing follow in the background — poll GET …/imports/{import_id}. ' +
          'A body that ends before its Content-Length or chunked terminator imports nothing: the import ends failed ("upload interrupted"). ' +
          'Bad lines are counted as rejected with their line number and reason; an upload with no valid line ends failed.',
        tags: ['imports'],
        security,
        params: SiteParams,
        querystring: ImportFormatQuery,
        consumes: [NDJSON],
        response: { 202: ImportCreated, ...errorResponses(400, 401, 403, 404, 413, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body as unknown;
      if (!body || typeof (body as Readable).pipe !== 'function')
        throw new ApiError('invalid_request', `Send the events as ${NDJSON} (one JSON object per line).`);
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        // a modest overshoot is drained so the client reads the 413; a huge one is cut off
        if (declared <= DRAIN_FACTOR * maxBytes) await drainBody(body as Readable, DRAIN_FACTOR * maxBytes);
        else reply.header('connection', 'close');
        throw payloadTooLarge(maxBytes);
      }
      const siteId = siteIdOf(request.params.id);
      const format = request.query.format;
      const job = await callUnary(
        sites,
        sites.createImport,
        'Sites/CreateImport',
        { actor: actorOf(request), audit: auditOf(request), siteId, format },
        callOptions(request, deadlineMs),
      );
      const receipt = await streamUpload(
        ingest,
        body as Readable,
        { importId: job.importId, siteId, format },
        { requestId: request.id, deadlineMs: UPLOAD_DEADLINE_MS, maxBytes },
      );
      return reply.code(202).send({
        import_id: job.importId,
        status: receipt.status as 'queued' | 'failed',
        format,
        rows_accepted: receipt.accepted,
        rows_rejected: receipt.rejected,
        errors: receipt.errors.map((e) => ({ line: e.line, reason: e.reason })),
      });
    },
  );

  app.get(
    '/api/v1/sites/:id/imports',
    {
      config: read,
      schema: {
        summary: 'List the site’s imports',
        description: 'Newest first (the last 100).',
        tags: ['imports'],
        security,
        params: SiteParams,
        response: { 200: z.object({ imports: z.array(ImportObject) }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.listImports,
        'Sites/ListImports',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id) },
        callOptions(request, deadlineMs),
      );
      return { imports: answer.imports.map(toImportObject) };
    },
  );

  app.get(
    '/api/v1/sites/:id/imports/:import_id',
    {
      config: read,
      schema: {
        summary: 'Read an import’s status',
        tags: ['imports'],
        security,
        params: ImportParams,
        response: { 200: ImportObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const job = await callUnary(
        sites,
        sites.getImport,
        'Sites/GetImport',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id), importId: importIdOf(request.params.import_id) },
        callOptions(request, deadlineMs),
      );
      return toImportObject(job);
    },
  );

  app.delete(
    '/api/v1/sites/:id/imports/:import_id',
    {
      config: write,
      schema: {
        summary: 'Delete an import and its rows',
        description:
          'Removes exactly this import’s events and the sessions they formed. Idempotent: 204 again for an import already deleted. Importing the same file again counts its visits and pageviews again (visitors merge): delete the earlier import first to replace it.',
        tags: ['imports'],
        security,
        params: ImportParams,
        response: { 204: z.null().describe('Deleted.'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const siteId = siteIdOf(request.params.id);
      const raw = request.params.import_id;
      // an id that cannot exist is already "gone": idempotent 204 after the reach check
      const importId = possibleImportId(raw);
      await callUnary(
        sites,
        sites.deleteImport,
        'Sites/DeleteImport',
        { actor: actorOf(request), audit: auditOf(request), siteId, importId },
        callOptions(request, deadlineMs),
      );
      // after the reach check: the rows go even when the record was already gone (a retry after a failed call)
      if (importId > 0) await callUnary(ingest, ingest.deleteImport, 'Ingest/DeleteImport', { siteId, importId }, callOptions(request, 5 * deadlineMs));
      // cached report answers of the site counted those rows (every replica's)
      if (importId > 0) await announceDataChange?.(siteId);
      return reply.code(204).send(null);
    },
  );
};
