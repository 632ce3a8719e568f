import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { ApiError, fromGrpcError } from '@sightline/errors';
import { REQUEST_ID_METADATA_KEY } from '@sightline/grpc-kit';
import type { ingestV1 } from '@sightline/proto';
import { injectTraceContext } from '@sightline/telemetry';
import type { Readable } from 'node:stream';

export interface UploadTarget {
  importId: number;
  siteId: number;
  format: string;
}

/**
 * Streams an upload body to ingest (IngestService.ImportEvents): the header, then the
 * body's chunks as they arrive, honouring gRPC flow control, so the gateway holds a
 * chunk at a time whatever the size; then an end message saying how the body ended.
 * Ingest keeps the upload only on an end message for a whole body, so a body cut
 * short (the client closed, half-closed or reset before its Content-Length or its
 * chunked terminator) is never written: the call is cancelled and ingest fails the
 * job "upload interrupted". Past `maxBytes` the end message names the limit (ingest
 * drops what it staged and fails the job saying so), the rest of the body is read
 * and dropped, and 413 `payload_too_large` is thrown.
 */
export function streamUpload(
  ingest: ingestV1.IngestServiceClient,
  body: Readable,
  target: UploadTarget,
  options: { requestId: string; deadlineMs: number; maxBytes: number },
): Promise<ingestV1.ImportEventsResponse> {
  const metadata = new Metadata();
  metadata.set(REQUEST_ID_METADATA_KEY, options.requestId);
  injectTraceContext(metadata);
  return new Promise((resolve, reject) => {
    let tooLarge = false;
    /** ingest answered with an error before the body ended */
    let answered = false;
    let ended = false;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const refuse = () => settle(() => reject(payloadTooLarge(options.maxBytes)));
    const call = ingest.importEvents(metadata, { deadline: Date.now() + options.deadlineMs }, (error: ServiceError | null, response) => {
      if (tooLarge) return; // answered once the body is drained
      if (error) {
        // ingest gave up (or is unreachable): stop forwarding, let the rest of the body drain
        answered = true;
        body.resume();
        return settle(() => reject(fromGrpcError(error)));
      }
      settle(() => resolve(response));
    });
    // failures arrive through the callback; an 'error' event without a listener would crash the process
    call.on('error', () => {});
    call.write({ header: { importId: target.importId, siteId: target.siteId, format: target.format }, data: Buffer.alloc(0) });
    let bytes = 0;
    /** The body stopped before its end: ingest drops it (no end message ever reaches it). */
    const interrupted = () => {
      if (ended) return;
      ended = true;
      if (tooLarge) return refuse(); // ingest was already told why; nobody is left to read the 413
      call.cancel();
      settle(() => reject(new ApiError('invalid_request', 'The upload ended before its declared length; nothing was imported.')));
    };
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (answered) return;
      if (tooLarge) {
        // discarded; a client still sending far past the limit is cut off
        if (bytes > DRAIN_FACTOR * options.maxBytes) {
          ended = true;
          body.destroy();
          refuse();
        }
        return;
      }
      if (bytes > options.maxBytes) {
        tooLarge = true;
        call.write({ data: Buffer.alloc(0), end: { totalBytes: 0, maxBytesExceeded: options.maxBytes } });
        call.end();
        body.resume();
        return;
      }
      if (!call.write({ data: chunk })) {
        body.pause();
        call.once('drain', () => body.resume());
      }
    });
    body.on('end', () => {
      // Node ends a request whose connection closed early too: only a complete one is an upload
      if (!isComplete(body)) return interrupted();
      ended = true;
      if (tooLarge) refuse();
      else if (!answered) {
        call.write({ data: Buffer.alloc(0), end: { totalBytes: bytes, maxBytesExceeded: 0 } });
        call.end();
      }
    });
    body.on('error', interrupted);
    // closed without 'end' or 'error' (the connection went away mid-body)
    body.on('close', interrupted);
  });
}

/** An HTTP request's body arrived to its declared end (Content-Length reached, or the chunked terminator read). */
const isComplete = (body: Readable): boolean => (body as Readable & { complete?: boolean }).complete !== false;

/**
 * Past the limit the rest of the body is read and dropped (up to this many times the
 * limit) before answering 413, so the client reads the answer instead of a reset.
 */
export const DRAIN_FACTOR = 2;

export const payloadTooLarge = (maxBytes: number): ApiError =>
  new ApiError('payload_too_large', `An import upload is at most ${maxBytes} bytes (IMPORT_MAX_BYTES); split the history into several imports.`);

/** Reads and drops a body (at most `limit` bytes), so a refusal reaches a client that is still sending. */
export function drainBody(body: Readable, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        body.destroy();
        resolve();
      }
    });
    body.on('end', resolve);
    body.on('error', () => resolve());
    body.on('close', resolve);
  });
}
