import { ApiError } from '@sightline/errors';
import { queryDuration } from '@sightline/telemetry';
import type { EventStore } from '@sightline/event-store';
import type { GeoLabels } from '../geo-labels.js';
import { checkInterval, listBuckets } from './buckets.js';
import { compareBlock, type Comparison, type MetricValues } from './compare.js';
import { compilePart, hasImportStatement } from './compile-sql.js';
import { parseQueryRequest } from './parse-request.js';
import { planQuery, type Plan } from './plan.js';
import { resolveCompareWindow, resolveWindow, type Window } from './resolve-dates.js';
import { lateEventsStatement, sessionVisitorsPlan } from './session-visitors.js';
import { geoLabel, mergeParts, metricValues, type RawRow } from './shape-results.js';
import type { SiteContext } from './site-context.js';
import { validateQuery, type ValidQuery } from './validate.js';
import { isTimezone } from './zoned-time.js';

/**
 * The query pipeline: parse → validate → resolve the window → plan → compile one
 * statement per part → run → shape. A pure function of (request body, site context,
 * events store): the gateway has already checked key, reach, plan and tracking.
 */
export interface QueryRow {
  dimensions?: Record<string, string>;
  labels?: Record<string, string>;
  metrics: MetricValues;
  comparison?: Comparison;
}

export interface QueryAnswer {
  results: QueryRow[];
  meta?: { total: number; limit: number; offset: number; has_more: boolean };
  has_import: boolean;
  query: {
    site_id: number;
    metrics: string[];
    dimensions: string[];
    filters: { field: string; operator: string; values: string[] }[];
    date_range: [string, string];
    compare?: [string, string];
  };
}

interface PartResults {
  groups: Map<string, Record<string, number | null>>;
  order: string[];
  total: number;
  totalVisitors?: number;
}

async function runPlan(events: EventStore, query: ValidQuery, plan: Plan, window: Window, site: SiteContext, values?: string[]): Promise<PartResults> {
  const primaryRows = await events.query<RawRow>(...statementArgs(compilePart({ query, part: plan.primary, window, site, ...(values ? { values } : {}) })));
  const order = primaryRows.map((row) => String(row.g));
  let total = Number(primaryRows[0]?.total ?? 0);
  if (!values && primaryRows.length === 0 && query.shape === 'breakdown' && query.offset > 0) {
    // paged past the end: the window function saw no row, so count from the start
    const [first] = await events.query<RawRow>(...statementArgs(compilePart({ query: { ...query, offset: 0, limit: 1 }, part: plan.primary, window, site })));
    total = Number(first?.total ?? 0);
  }
  const restrict = query.shape === 'breakdown' ? (values ?? order) : undefined;
  let totalVisitors: number | undefined;
  const secondaryRows: RawRow[][] = [];
  for (const part of plan.secondary) {
    if (part.kind === 'goal-total') {
      const [row] = await events.query<RawRow>(...statementArgs(compilePart({ query, part, window, site })));
      totalVisitors = Number(row?.m_visitors ?? 0);
      continue;
    }
    if (restrict && restrict.length === 0) continue;
    secondaryRows.push(await events.query<RawRow>(...statementArgs(compilePart({ query, part, window, site, ...(restrict ? { values: restrict } : {}) }))));
  }
  return { groups: mergeParts([primaryRows, ...secondaryRows]), order, total, ...(totalVisitors !== undefined ? { totalVisitors } : {}) };
}

/** The plan for one window: its visitors from sessions where that is the same set (session-visitors.ts). */
async function planForWindow(events: EventStore, query: ValidQuery, plan: Plan, window: Window, site: SiteContext): Promise<Plan> {
  const fromSessions = sessionVisitorsPlan(query, plan, window);
  if (!fromSessions) return plan;
  const [row] = await events.query<{ late: number | boolean }>(...statementArgs(lateEventsStatement(window, site)));
  return Number(row?.late ?? 1) === 0 ? fromSessions : plan;
}

function statementArgs(statement: { sql: string; params: Record<string, unknown> }): [string, Record<string, unknown>] {
  return [statement.sql, statement.params];
}

export interface RunQueryDeps {
  events: EventStore;
  geo: GeoLabels;
}

export async function runQuery(deps: RunQueryDeps, body: unknown, site: SiteContext): Promise<QueryAnswer> {
  const parsed = parseQueryRequest(body);
  const query = validateQuery(parsed);
  const stopTimer = queryDuration.startTimer({ shape: query.shape });
  if (!isTimezone(site.timezone)) throw new ApiError('internal', 'The site has an unknown timezone.');
  const window = resolveWindow(parsed.dateRange, site.timezone, site.nowMs);
  const compareWindow = parsed.compare !== undefined ? resolveCompareWindow(parsed.compare, window, site.timezone) : undefined;
  if (query.interval) checkInterval(query.interval, window);
  const plan = planQuery(query);

  const current = await runPlan(deps.events, query, await planForWindow(deps.events, query, plan, window, site), window, site);
  const [importRow] = await deps.events.query<{ has_import: number | boolean }>(...statementArgs(hasImportStatement(window, site)));
  const withCompare = compareWindow && (query.shape !== 'breakdown' || query.breakdown!.compare);

  let results: QueryRow[];
  let meta: QueryAnswer['meta'];
  if (query.shape === 'aggregate') {
    const metrics = metricValues(query.metrics, current.groups.get(''), current.totalVisitors);
    results = [{ metrics }];
    if (withCompare) {
      const previous = await runPlan(deps.events, query, await planForWindow(deps.events, query, plan, compareWindow, site), compareWindow, site);
      results[0]!.comparison = compareBlock(query.metrics, metrics, metricValues(query.metrics, previous.groups.get(''), previous.totalVisitors));
    }
  } else if (query.shape === 'timeseries') {
    const buckets = listBuckets(query.interval!, window, site.timezone, site.weekStart);
    results = buckets.map((bucket) => ({ dimensions: { [query.dimension!]: bucket.label }, metrics: metricValues(query.metrics, current.groups.get(bucket.key)) }));
    if (withCompare) {
      // aligned by position: the n-th bucket of the compare window
      const previous = await runPlan(deps.events, query, plan, compareWindow, site);
      const previousBuckets = listBuckets(query.interval!, compareWindow, site.timezone, site.weekStart);
      results.forEach((row, index) => {
        const bucket = previousBuckets[index];
        row.comparison = compareBlock(query.metrics, row.metrics, bucket ? metricValues(query.metrics, previous.groups.get(bucket.key)) : {});
      });
    }
  } else {
    const spec = query.breakdown!;
    results = current.order.map((value) => {
      const row: QueryRow = { dimensions: { [query.dimension!]: value }, metrics: metricValues(query.metrics, current.groups.get(value), current.totalVisitors) };
      if (spec.labels) row.labels = { [query.dimension!]: geoLabel(spec.labels, value, deps.geo) };
      return row;
    });
    if (withCompare && current.order.length) {
      // each row against its own previous value
      const previous = await runPlan(deps.events, query, plan, compareWindow, site, current.order);
      for (const row of results) {
        const value = row.dimensions![query.dimension!]!;
        row.comparison = compareBlock(query.metrics, row.metrics, metricValues(query.metrics, previous.groups.get(value) ?? {}, previous.totalVisitors));
      }
    }
    meta = { total: current.total, limit: query.limit, offset: query.offset, has_more: query.offset + current.order.length < current.total };
  }
  const echoRange = (w: Window): [string, string] => (w.kind === 'realtime' ? [new Date(w.startMs).toISOString(), new Date(w.endMs - 1).toISOString()] : [w.startDate, w.endDate]);
  stopTimer();
  return {
    results,
    ...(meta ? { meta } : {}),
    has_import: Boolean(Number(importRow?.has_import ?? 0)),
    query: {
      site_id: site.siteId, metrics: query.metrics, dimensions: query.dimension ? [query.dimension] : [],
      filters: query.filters.map((f) => ({ field: f.field, operator: f.operator, values: f.values })),
      date_range: echoRange(window), ...(compareWindow ? { compare: echoRange(compareWindow) } : {}),
    },
  };
}
