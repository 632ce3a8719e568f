import { ApiError } from '@sightline/errors';
import type { EventStore } from '@sightline/event-store';
import { queryDuration } from '@sightline/telemetry';
import type { FunnelReport, FunnelReportRequest } from '@sightline/query-contract';
import { resolveCompareWindow, resolveWindow, type Window } from '../query/resolve-dates.js';
import type { ReportSite } from '../query/report-site.js';
import { validateQuery } from '../query/validate.js';
import { isTimezone } from '../query/zoned-time.js';
import { stepFigures, stepRows, type FunnelRawRow } from './funnel-figures.js';
import { funnelStatement } from './funnel-sql.js';

/**
 * A funnel report: the query pipeline's own steps (filters checked against the same
 * catalogue, windows resolved in the site's timezone, the same compare rules), then
 * one statement per window (funnel-sql.ts), the current and the compare window side
 * by side.
 */
export async function runFunnelReport(events: EventStore, request: FunnelReportRequest, site: ReportSite): Promise<FunnelReport> {
  const { filters } = validateQuery({ metrics: ['visitors'], dateRange: request.dateRange, dimensions: [], filters: request.filters });
  const stopTimer = queryDuration.startTimer({ shape: 'funnel' });
  if (!isTimezone(site.timezone)) throw new ApiError('internal', 'The site has an unknown timezone.');
  const window = resolveWindow(request.dateRange, site.timezone, site.nowMs);
  const compareWindow = request.compare !== undefined ? resolveCompareWindow(request.compare, window, site.timezone) : undefined;
  const { steps } = request.funnel;

  const figuresOf = async (w: Window) => {
    const statement = funnelStatement(steps, filters, w, site);
    const [row] = await events.query<FunnelRawRow>(statement.sql, statement.params);
    return stepFigures(steps, row);
  };
  const [current, previous] = await Promise.all([figuresOf(window), compareWindow ? figuresOf(compareWindow) : undefined]);
  const echoRange = (w: Window): [string, string] =>
    w.kind === 'realtime' ? [new Date(w.startMs).toISOString(), new Date(w.endMs - 1).toISOString()] : [w.startDate, w.endDate];
  stopTimer();
  return {
    funnel_id: request.funnel.funnel_id,
    name: request.funnel.name,
    steps: stepRows(steps, current, previous),
    query: {
      site_id: site.siteId,
      funnel_id: request.funnel.funnel_id,
      filters: filters.map((f) => ({ field: f.field, operator: f.operator, values: f.values })),
      date_range: echoRange(window),
      ...(compareWindow ? { compare: echoRange(compareWindow) } : {}),
    },
  };
}
