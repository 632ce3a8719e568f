import type { QueryRequest } from '../api/client.js';
import type { ResolvedPeriod } from './periods.js';
import { apiFilters, GRAPH_METRICS, type DashboardState } from './url-state.js';

/**
 * The API requests the view makes (also the CSV export's): top stats, the graph's
 * series and each tab's breakdown. Pure.
 */
export function statsRequest(state: DashboardState, period: ResolvedPeriod): QueryRequest {
  return {
    metrics: [...GRAPH_METRICS],
    date_range: period.dateRange,
    filters: apiFilters(state.filters),
    ...(period.compare ? { compare: period.compare } : {}),
  };
}

export function seriesRequest(state: DashboardState, period: ResolvedPeriod): QueryRequest {
  return { ...statsRequest(state, period), metrics: [state.metric], dimensions: [`time:${period.interval}`] };
}

export function breakdownRequest(
  state: DashboardState,
  period: ResolvedPeriod,
  dimension: string,
  metrics: string[],
  limit: number,
  extraFilters: QueryRequest['filters'] = [],
  offset = 0,
): QueryRequest {
  // no compare here: suggestions, details and the export read current values; panels add it (withCompare)
  return {
    metrics,
    date_range: period.dateRange,
    dimensions: [dimension],
    filters: [...apiFilters(state.filters), ...(extraFilters ?? [])],
    limit,
    ...(offset ? { offset } : {}),
  };
}

export function realtimeRequest(state: DashboardState): QueryRequest {
  return { metrics: ['visitors'], date_range: 'realtime', filters: apiFilters(state.filters) };
}

/**
 * The panel's breakdown with the comparison period: the API answers each row's own
 * previous values in the same query (spec "Compare": breakdowns get one block per
 * row; none for event:goal and event:status_code, which still succeed).
 */
export function withCompare(request: QueryRequest, period: ResolvedPeriod): QueryRequest {
  return period.compare ? { ...request, compare: period.compare } : request;
}
