import { ApiError } from '@sightline/errors';
import type { QueryAnswer } from './query-answer.js';
import { parseQueryRequest, type QueryRequest } from './query-request.js';

/**
 * The Query RPC's payloads (proto/sightline/query/v1: `bytes query`, `bytes answer`):
 * UTF-8 JSON of POST /query's body (without site_id) and of its answer. The request is
 * decoded through the same validator the gateway ran, so the service accepts nothing
 * the contract does not, whoever calls it; the answer comes from our own service and is
 * encoded again by the gateway's response schema on its way out.
 */
export const QUERY_REQUEST_MAX_BYTES = 256 * 1024;

export function encodeQueryRequest(query: QueryRequest): Buffer {
  const body = {
    metrics: query.metrics,
    date_range: query.dateRange,
    dimensions: query.dimensions,
    filters: query.filters,
    ...(query.compare !== undefined ? { compare: query.compare } : {}),
    ...(query.limit !== undefined ? { limit: query.limit } : {}),
    ...(query.offset !== undefined ? { offset: query.offset } : {}),
  };
  return Buffer.from(JSON.stringify(body));
}

export function decodeQueryRequest(bytes: Uint8Array): QueryRequest {
  if (bytes.byteLength > QUERY_REQUEST_MAX_BYTES) throw new ApiError('payload_too_large');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    throw new ApiError('invalid_request', 'The query is not JSON.');
  }
  return parseQueryRequest(body);
}

export function encodeQueryAnswer(answer: QueryAnswer): Buffer {
  return Buffer.from(JSON.stringify(answer));
}

/** The answer's JSON text (the gateway's answer cache keeps it as text). */
export function queryAnswerText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export function decodeQueryAnswer(text: string): QueryAnswer {
  return JSON.parse(text) as QueryAnswer;
}
