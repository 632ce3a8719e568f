// POST /query's contract: one request type and validator, one answer type, their wire form.
export { QUERY_LIMITS, parseQueryRequest, type DateRange, type QueryFilter, type QueryRequest } from './query-request.js';
export type { Comparison, MetricValues, QueryAnswer, QueryRow } from './query-answer.js';
export { QUERY_REQUEST_MAX_BYTES, decodeQueryAnswer, decodeQueryRequest, encodeQueryAnswer, encodeQueryRequest, queryAnswerText } from './query-wire.js';
export { queryBodyDocument, type QueryNames } from './query-document.js';
// GET /sites/{id}/funnels/{funnel_id}/report: the same window, filters and compare over a funnel's steps.
export {
  FUNNEL_LIMITS,
  decodeFunnelReport,
  decodeFunnelReportRequest,
  encodeFunnelReport,
  encodeFunnelReportRequest,
  parseFunnelQuery,
  type FunnelReport,
  type FunnelReportRequest,
  type FunnelStep,
  type FunnelStepFigures,
  type FunnelStepRow,
} from './funnel-report.js';
