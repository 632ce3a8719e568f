import { ApiError } from '@sightline/errors';
import type { EventStore } from '@sightline/event-store';
import type { queryV1 } from '@sightline/proto';
import { decodeFunnelReportRequest, decodeQueryRequest, encodeFunnelReport, encodeQueryAnswer } from '@sightline/query-contract';
import { runFunnelReport } from './funnel/run-funnel.js';
import type { GeoLabels } from './geo-labels.js';
import { listProps } from './props.js';
import { REALTIME_MINUTES } from './query/resolve-dates.js';
import { runQuery } from './query/run-query.js';
import type { ReportSite } from './query/report-site.js';

/**
 * The Query and ListProps RPCs: the report site from the gateway + the events
 * store → the answer. Query's request and answer are libs/query-contract's types on
 * the wire (its codec validates the request with the one parser).
 */
export function reportSiteOf(site: queryV1.ReportSite | undefined): ReportSite {
  const nowMs = Date.parse(site?.now ?? '');
  if (!site || site.siteId <= 0 || !Number.isFinite(nowMs)) throw new ApiError('invalid_request', 'The site context (site_id, timezone, now) is required.');
  const realtimeMinutes = site.realtimeMinutes ?? 0;
  if (realtimeMinutes > REALTIME_MINUTES) throw new ApiError('invalid_request', `realtime_minutes is at most ${REALTIME_MINUTES}.`);
  return {
    siteId: site.siteId,
    timezone: site.timezone || 'UTC',
    weekStart: site.weekStart,
    nowMs,
    goals: site.goals,
    ...(realtimeMinutes > 0 ? { realtimeMinutes } : {}),
  };
}

export async function handleQuery(
  deps: { events: EventStore; geo: GeoLabels; retentionDays?: number },
  request: queryV1.QueryRequest,
): Promise<queryV1.QueryResponse> {
  const query = decodeQueryRequest(request.query);
  return { answer: encodeQueryAnswer(await runQuery(deps, query, reportSiteOf(request.site))) };
}

export async function handleFunnelReport(events: EventStore, request: queryV1.FunnelReportRequest): Promise<queryV1.FunnelReportResponse> {
  const report = decodeFunnelReportRequest(request.report);
  return { answer: encodeFunnelReport(await runFunnelReport(events, report, reportSiteOf(request.site))) };
}

export async function handleListProps(events: EventStore, request: queryV1.ListPropsRequest): Promise<queryV1.ListPropsResponse> {
  let range: string | [string, string] = request.dateRange;
  if (range.startsWith('[')) {
    try {
      range = JSON.parse(range) as [string, string];
    } catch {
      throw new ApiError('invalid_date_range');
    }
    if (!Array.isArray(range) || range.length !== 2 || !range.every((d) => typeof d === 'string')) throw new ApiError('invalid_date_range');
  }
  const answer = await listProps(events, range, reportSiteOf(request.site));
  return { props: answer.props, dateRangeStart: answer.date_range[0], dateRangeEnd: answer.date_range[1] };
}
