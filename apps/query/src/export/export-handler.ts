import { once } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { isApiError, toGrpcError } from '@sightline/errors';
import type { EventStore } from '@sightline/event-store';
import { REQUEST_ID_METADATA_KEY } from '@sightline/grpc-kit';
import type { queryV1 } from '@sightline/proto';
import type { Logger } from '@sightline/telemetry';
import { exportEvents, type ExportSink } from './export-events.js';

/** grpc-js server-streaming glue: flow control (write → 'drain'), cancellation, errors as the catalogue's status. */
export function exportEventsHandler(events: EventStore, log: Logger) {
  return (call: ServerWritableStream<queryV1.ExportEventsRequest, queryV1.ExportChunk>): void => {
    let cancelled = false;
    call.on('cancelled', () => (cancelled = true));
    const sink: ExportSink = {
      async write(chunk) {
        if (cancelled) return;
        if (!call.write(chunk)) await Promise.race([once(call, 'drain'), once(call, 'cancelled')]);
      },
      cancelled: () => cancelled,
    };
    exportEvents(events, call.request, sink).then(
      () => {
        if (!cancelled) call.end();
      },
      (error: unknown) => {
        const requestId = String(call.metadata.get(REQUEST_ID_METADATA_KEY)[0] ?? '');
        if (!isApiError(error)) log.error({ err: error, request_id: requestId }, 'export failed');
        else log.info({ code: error.code, request_id: requestId }, 'export refused or stopped');
        // grpc-js sends an 'error' emitted on a server stream as the call's status
        if (!cancelled) call.emit('error', toGrpcError(error));
      },
    );
  };
}
