// POST /query's contract: one request type and validator, one answer type, their wire form.
export { QUERY_LIMITS, parseQueryRequest, type DateRange, type QueryFilter, type QueryRequest } from './query-request.js';
export type { Comparison, MetricValues, QueryAnswer, QueryRow } from './query-answer.js';
export { QUERY_REQUEST_MAX_BYTES, decodeQueryAnswer, decodeQueryRequest, encodeQueryAnswer, encodeQueryRequest, queryAnswerText } from './query-wire.js';
export { queryBodyDocument, type QueryNames } from './query-document.js';
