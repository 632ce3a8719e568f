import { ApiError } from '@sightline/errors';
import { queryDuration } from '@sightline/telemetry';
import type { EventStore } from '@sightline/event-store';
import type { QueryAnswer, QueryRequest, QueryRow } from '@sightline/query-contract';
import type { GeoLabels } from '../geo-labels.js';
import { checkInterval, listBuckets } from './buckets.js';
import { compareBlock } from './compare.js';
import { compilePart, hasImportStatement, type CompileInput, type Statement } from './compile-sql.js';
import { planQuery, type Part, type Plan } from './plan.js';
import { resolveCompareWindow, resolveWindow, type Window } from './resolve-dates.js';
import { compileRollupPart, rollupAnswers, rollupHasImportStatement } from './rollup-sql.js';
import { lateEventsStatement, sessionVisitorsPlan } from './session-visitors.js';
import { geoLabel, mergeParts, metricValues, type RawRow } from './shape-results.js';
import type { ReportSite } from './report-site.js';
import { validateQuery, type ValidQuery } from './validate.js';
import { isTimezone } from './zoned-time.js';

/**
 * The query pipeline: validate → resolve the window → plan → compile one statement
 * per part → run → shape. A pure function of (request, report site, events store):
 * the gateway has already checked key, reach, plan and tracking, and the request was
 * parsed by libs/query-contract. Statements that do not need another's rows run at
 * the same time (see runPlan and runQuery).
 */
interface PartResults {
  groups: Map<string, Record<string, number | null>>;
  order: string[];
  total: number;
  totalVisitors?: number;
}

/**
 * The plan's statements for one window. A breakdown's primary ranks and pages the
 * values the other parts are restricted to, so they start once it has answered,
 * unless the values are given (a compare window reads the current window's rows); every
 * other part, and a goal-total, runs beside the primary.
 */
async function runPlan(
  events: EventStore,
  query: ValidQuery,
  plan: Plan,
  window: Window,
  site: ReportSite,
  values?: string[],
  compile: (input: CompileInput) => Statement = compilePart,
): Promise<PartResults> {
  const run = (part: Part, restrict?: string[]) =>
    events.query<RawRow>(...statementArgs(compile({ query, part, window, site, ...(restrict ? { values: restrict } : {}) })));
  const goalTotal = plan.secondary.find((part) => part.kind === 'goal-total');
  const others = plan.secondary.filter((part) => part.kind !== 'goal-total');
  const waitsForPrimary = query.shape === 'breakdown' && !values;
  const runOthers = (restrict: string[] | undefined): Promise<RawRow[][]> =>
    restrict && restrict.length === 0 ? Promise.resolve([]) : Promise.all(others.map((part) => run(part, restrict)));

  const [primaryRows, goalTotalRows, earlyOthers] = await Promise.all([
    run(plan.primary, values),
    goalTotal ? run(goalTotal) : undefined,
    waitsForPrimary ? undefined : runOthers(query.shape === 'breakdown' ? values : undefined),
  ]);
  const order = primaryRows.map((row) => String(row.g));
  let total = Number(primaryRows[0]?.total ?? 0);
  // paged past the end: the window function saw no row, so count from the start
  const pagedPastEnd = !values && primaryRows.length === 0 && query.shape === 'breakdown' && query.offset > 0;
  const countFromStart = pagedPastEnd
    ? events.query<RawRow>(...statementArgs(compilePart({ query: { ...query, offset: 0, limit: 1 }, part: plan.primary, window, site })))
    : undefined;
  const [secondaryRows, firstPage] = await Promise.all([earlyOthers ?? runOthers(order), countFromStart]);
  if (firstPage) total = Number(firstPage[0]?.total ?? 0);
  const totalVisitors = goalTotalRows ? Number(goalTotalRows[0]?.m_visitors ?? 0) : undefined;
  return { groups: mergeParts([primaryRows, ...secondaryRows]), order, total, ...(totalVisitors !== undefined ? { totalVisitors } : {}) };
}

/** The plan for one window: its visitors from sessions where that is the same set (session-visitors.ts). */
async function planForWindow(events: EventStore, query: ValidQuery, plan: Plan, window: Window, site: ReportSite): Promise<Plan> {
  const fromSessions = sessionVisitorsPlan(query, plan, window);
  if (!fromSessions) return plan;
  const [row] = await events.query<{ late: number | boolean }>(...statementArgs(lateEventsStatement(window, site)));
  return Number(row?.late ?? 1) === 0 ? fromSessions : plan;
}

function statementArgs(statement: { sql: string; params: Record<string, unknown> }): [string, Record<string, unknown>] {
  return [statement.sql, statement.params];
}

interface RunQueryDeps {
  events: EventStore;
  geo: GeoLabels;
  /** false: never read the hourly roll-ups (rollup-sql.ts), only today's statements — the differential test's reference */
  rollups?: boolean;
  /** EVENTS_RETENTION_DAYS: raw rows older than this many days may be gone; such windows read the roll-ups or fail */
  retentionDays?: number;
}

const DAY_MS = 86_400_000;

export async function runQuery(deps: RunQueryDeps, request: QueryRequest, site: ReportSite): Promise<QueryAnswer> {
  const query = validateQuery(request);
  const stopTimer = queryDuration.startTimer({ shape: query.shape });
  if (!isTimezone(site.timezone)) throw new ApiError('internal', 'The site has an unknown timezone.');
  const window = resolveWindow(request.dateRange, site.timezone, site.nowMs, site.realtimeMinutes);
  const compareWindow = request.compare !== undefined ? resolveCompareWindow(request.compare, window, site.timezone) : undefined;
  if (query.interval) checkInterval(query.interval, window);
  const plan = planQuery(query);
  const withCompare = compareWindow !== undefined && (query.shape !== 'breakdown' || query.breakdown!.compare === true) ? compareWindow : undefined;

  // a window the roll-ups answer exactly reads them; otherwise today's statements. A window
  // starting before the raw rows kept (EVENTS_RETENTION_DAYS) must read them, else outside_retention.
  const horizonMs = deps.retentionDays !== undefined ? site.nowMs - deps.retentionDays * DAY_MS : -Infinity;
  const beforeRaw = (w: Window) => w.startMs < horizonMs;
  const fromRollups = (w: Window) => (deps.rollups !== false || beforeRaw(w)) && rollupAnswers(query, plan, w, site);
  const readsBeforeRaw = [window, ...(withCompare ? [withCompare] : [])].filter(beforeRaw);
  if (readsBeforeRaw.some((w) => !fromRollups(w)))
    throw new ApiError('outside_retention', `Raw events are kept for ${deps.retentionDays} days; this query needs them before that.`);
  const run = (w: Window, values?: string[]) =>
    fromRollups(w) ? runPlan(deps.events, query, plan, w, site, values, compileRollupPart) : runPlan(deps.events, query, plan, w, site, values);
  const runWithSessionVisitors = async (w: Window) =>
    fromRollups(w) ? run(w) : runPlan(deps.events, query, await planForWindow(deps.events, query, plan, w, site), w, site);
  // the current window, has_import and the compare window side by side; a breakdown's
  // compare reads the current rows' values, so it follows them
  const [current, [importRow], previous] = await Promise.all([
    runWithSessionVisitors(window),
    deps.events.query<{ has_import: number | boolean }>(
      ...statementArgs(beforeRaw(window) ? rollupHasImportStatement(window, site) : hasImportStatement(window, site)),
    ),
    !withCompare ? undefined : query.shape === 'aggregate' ? runWithSessionVisitors(withCompare) : query.shape === 'timeseries' ? run(withCompare) : undefined,
  ]);

  let results: QueryRow[];
  let meta: QueryAnswer['meta'];
  if (query.shape === 'aggregate') {
    const metrics = metricValues(query.metrics, current.groups.get(''), current.totalVisitors);
    results = [{ metrics }];
    if (previous) results[0]!.comparison = compareBlock(query.metrics, metrics, metricValues(query.metrics, previous.groups.get(''), previous.totalVisitors));
  } else if (query.shape === 'timeseries') {
    const buckets = listBuckets(query.interval!, window, site.timezone, site.weekStart);
    results = buckets.map((bucket) => ({
      dimensions: { [query.dimension!]: bucket.label },
      metrics: metricValues(query.metrics, current.groups.get(bucket.key)),
    }));
    if (previous && withCompare) {
      // aligned by position: the n-th bucket of the compare window
      const previousBuckets = listBuckets(query.interval!, withCompare, site.timezone, site.weekStart);
      results.forEach((row, index) => {
        const bucket = previousBuckets[index];
        row.comparison = compareBlock(query.metrics, row.metrics, bucket ? metricValues(query.metrics, previous.groups.get(bucket.key)) : {});
      });
    }
  } else {
    const spec = query.breakdown!;
    results = current.order.map((value) => {
      const row: QueryRow = {
        dimensions: { [query.dimension!]: value },
        metrics: metricValues(query.metrics, current.groups.get(value), current.totalVisitors),
      };
      if (spec.labels) row.labels = { [query.dimension!]: geoLabel(spec.labels, value, deps.geo) };
      return row;
    });
    if (withCompare && current.order.length) {
      // each row against its own previous value
      const before = await run(withCompare, current.order);
      for (const row of results) {
        const value = row.dimensions![query.dimension!]!;
        row.comparison = compareBlock(query.metrics, row.metrics, metricValues(query.metrics, before.groups.get(value) ?? {}, before.totalVisitors));
      }
    }
    meta = { total: current.total, limit: query.limit, offset: query.offset, has_more: query.offset + current.order.length < current.total };
  }
  if (readsBeforeRaw.length > 0) meta = { ...meta, from_rollups: true };
  const echoRange = (w: Window): [string, string] =>
    w.kind === 'realtime' ? [new Date(w.startMs).toISOString(), new Date(w.endMs - 1).toISOString()] : [w.startDate, w.endDate];
  stopTimer();
  return {
    results,
    ...(meta ? { meta } : {}),
    has_import: Boolean(Number(importRow?.has_import ?? 0)),
    query: {
      site_id: site.siteId,
      metrics: query.metrics,
      dimensions: query.dimension ? [query.dimension] : [],
      filters: query.filters.map((f) => ({ field: f.field, operator: f.operator, values: f.values })),
      date_range: echoRange(window),
      ...(compareWindow ? { compare: echoRange(compareWindow) } : {}),
    },
  };
}
