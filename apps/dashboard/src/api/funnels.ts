/**
 * The funnel reads of the signed-in dashboard: the site's funnels and one funnel's
 * report (GET /api/v1/sites/{id}/funnels/{funnel_id}/report). The share API has no
 * funnels, so these take a session source only.
 */
import { call, type ApiFilter, type DataSource, type DateRange } from './client.js';

export type SessionSource = Extract<DataSource, { kind: 'session' }>;

export interface FunnelEntry {
  funnel_id: number;
  name: string;
  steps: { goal_id: number; display_name: string }[];
}

export interface FunnelFigures {
  visitors: number;
  conversion_rate: number | null;
  step_conversion_rate: number | null;
  dropoff: number | null;
  median_seconds_to_next: number | null;
}

export interface FunnelStepAnswer extends FunnelFigures {
  step: number;
  goal_id: number;
  name: string;
  comparison?: { metrics: FunnelFigures; change: Record<keyof FunnelFigures, number | null> };
}

export interface FunnelReportAnswer {
  funnel_id: number;
  name: string;
  steps: FunnelStepAnswer[];
  query: { date_range: string[]; compare?: string[] };
}

export interface FunnelReportRequest {
  date_range: DateRange;
  filters: ApiFilter[];
  compare?: DateRange;
}

const rangeParam = (range: DateRange) => (Array.isArray(range) ? range.join(',') : range);

export function listFunnels(source: SessionSource, signal?: AbortSignal): Promise<{ funnels: FunnelEntry[] }> {
  return call('GET', `/api/v1/sites/${source.siteId}/funnels`, { csrfToken: source.csrfToken, retry: true, ...(signal ? { signal } : {}) });
}

export function funnelReport(source: SessionSource, funnelId: number, request: FunnelReportRequest, signal?: AbortSignal): Promise<FunnelReportAnswer> {
  const query = new URLSearchParams({ date_range: rangeParam(request.date_range) });
  if (request.filters.length) query.set('filters', JSON.stringify(request.filters));
  if (request.compare !== undefined) query.set('compare', rangeParam(request.compare));
  return call('GET', `/api/v1/sites/${source.siteId}/funnels/${funnelId}/report?${query.toString()}`, {
    csrfToken: source.csrfToken,
    retry: true,
    ...(signal ? { signal } : {}),
  });
}
