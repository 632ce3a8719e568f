import type { sendUnaryData, ServerReadableStream } from '@grpc/grpc-js';
import { ApiError, toGrpcError } from '@sightline/errors';
import { IMPORT_FORMATS, type ImportFormat } from '@sightline/events-schema';
import { unary } from '@sightline/grpc-kit';
import type { ingestV1 } from '@sightline/proto';
import type { Logger } from '@sightline/telemetry';
import type { ImportRunner } from './import-runner.js';
import { UploadStopped, uploadInterrupted, uploadTooLarge } from './upload-stopped.js';

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/**
 * The chunks after the header, as Buffers, ending only at the gateway's end message
 * for a whole body (its byte count checked). Anything else — a cancelled call, a
 * stream that ends without that message, a body refused over the limit — throws
 * UploadStopped, so the upload is dropped, never promoted, and never waited on forever.
 */
async function* chunksOf(
  call: ServerReadableStream<ingestV1.ImportEventsRequest, ingestV1.ImportEventsResponse>,
  first: ingestV1.ImportEventsRequest,
  rest: AsyncIterator<ingestV1.ImportEventsRequest>,
): AsyncGenerator<Buffer> {
  let received = 0;
  let message = first;
  for (;;) {
    if (message.data.length > 0) {
      received += message.data.length;
      yield Buffer.from(message.data);
    }
    if (message.end) {
      if (message.end.maxBytesExceeded > 0) throw uploadTooLarge(message.end.maxBytesExceeded);
      if (message.end.totalBytes !== received) throw uploadInterrupted();
      return;
    }
    const next = await rest.next().catch(() => ({ done: true as const, value: undefined }));
    if (next.done || call.cancelled) throw uploadInterrupted();
    message = next.value;
  }
}

/** IngestService: the upload of an import (client streaming) and the removal of its rows. */
export function ingestServiceImplementation(runner: ImportRunner, log: Logger): ingestV1.IngestServiceServer {
  return {
    importEvents: (
      call: ServerReadableStream<ingestV1.ImportEventsRequest, ingestV1.ImportEventsResponse>,
      callback: sendUnaryData<ingestV1.ImportEventsResponse>,
    ) => {
      call.on('cancelled', () => call.destroy(new Error('upload cancelled')));
      const iterator = call[Symbol.asyncIterator]() as AsyncIterator<ingestV1.ImportEventsRequest>;
      void (async () => {
        const first = await iterator.next();
        const header = first.done ? undefined : first.value.header;
        if (!header || !isId(header.importId) || !isId(header.siteId) || !(IMPORT_FORMATS as readonly string[]).includes(header.format)) {
          throw new ApiError('invalid_request', 'The first message of an import must carry its header (import_id, site_id, format).');
        }
        const run = await runner.receive(
          { importId: header.importId, siteId: header.siteId, format: header.format as ImportFormat },
          chunksOf(call, first.value, iterator),
        );
        return { status: run.state === 'failed' ? 'failed' : 'queued', accepted: run.accepted, rejected: run.rejected, errors: run.errors };
      })().then(
        (response) => callback(null, response),
        (error: unknown) => {
          // a client gone or a body over the limit is the job's failure, not ingest's
          if (!call.cancelled && !(error instanceof UploadStopped)) log.warn({ err: error }, 'import upload failed');
          callback(toGrpcError(error));
        },
      );
    },
    deleteImport: unary('Ingest/DeleteImport', log, async (request: ingestV1.DeleteImportRequest) => {
      if (!isId(request.siteId) || !isId(request.importId)) throw new ApiError('invalid_request', 'site_id and import_id are required.');
      await runner.delete(request.siteId, request.importId);
      return {};
    }),
  };
}
