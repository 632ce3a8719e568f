import type { Metadata } from '@grpc/grpc-js';
import type { Logger } from '@sightline/telemetry';

/** What a service handler knows about the call besides its request message. */
export interface CallContext {
  /** the gateway's X-Request-ID for the HTTP request behind this call */
  requestId: string;
  /** logger carrying service, method and request_id */
  log: Logger;
  metadata: Metadata;
}

export const REQUEST_ID_METADATA_KEY = 'x-request-id';

export function requestIdFrom(metadata: Metadata): string {
  const value = metadata.get(REQUEST_ID_METADATA_KEY)[0];
  return typeof value === 'string' && value.length > 0 && value.length <= 128 ? value : 'internal';
}
