import { ALL_SHAPE_METRICS, EVENT_METRIC_SQL, SESSION_METRIC_SQL, type MetricName } from '../catalogue/metrics.js';
import type { ValidQuery } from './validate.js';

/**
 * Step 4: which statements answer the query. Each part reads ONE table and groups by
 * one expression (none for an aggregate, the bucket key for a time series, the
 * dimension value for a breakdown). For a breakdown, the part holding the ranking
 * metric (visitors, else the first requested) is `primary`: it sorts, pages and
 * counts the distinct values; the other parts are restricted to the primary's values.
 * Ranked by exit_rate, the primary reads the exits and joins the pages' pageviews,
 * so the ratio itself orders and pages the rows (SEMANTICS: breakdown order).
 *
 * Where each metric comes from:
 * - aggregate / time series: visitors, pageviews from events in the window;
 *   visits, visit_duration, bounce_rate, views_per_visit, engagement_time from the
 *   sessions overlapping the window (a time series puts a session in the bucket of
 *   its start, a session started before the window in the first bucket);
 * - breakdowns: per the dimension catalogue.
 */
export type PartKind = 'sessions' | 'events' | 'goal' | 'goal-total';

export interface Part {
  kind: PartKind;
  /** SQL metrics computed (requested and helper ones, e.g. visits for exit_rate) */
  metrics: MetricName[];
  /** group expression: the dimension's SQL on the part's table; absent = one row */
  groupSql?: string;
  eventWhere?: string;
  /** primary of a breakdown: order by this metric desc, then value asc */
  rankBy?: MetricName;
  /** sessions part: the group value can change between a session's versions */
  groupVaries?: boolean;
  /** sessions part grouped by each event's value (`groupSql` on events): a visit counts under each */
  groupsEvents?: boolean;
  /** goal-total: the window's visitors from the overlapping sessions (session-visitors.ts) */
  fromSessions?: boolean;
  /** filter fields this part does not apply (exit_rate's pageviews ignore `exit_page`) */
  ignoresFilters?: readonly string[];
  /** sessions part ranked by exit_rate: the exit page's pageviews, joined by value */
  exitPageviews?: Part;
}

export interface Plan {
  primary: Part;
  secondary: Part[];
}

const SESSION_SIDE = (metric: MetricName) => SESSION_METRIC_SQL[metric] !== undefined;

export function planQuery(query: ValidQuery): Plan {
  if (query.shape !== 'breakdown') {
    const eventMetrics: MetricName[] = query.metrics.filter((m) => m === 'visitors' || m === 'pageviews');
    const sessionMetrics = query.metrics.filter((m) => ALL_SHAPE_METRICS.includes(m) && !eventMetrics.includes(m));
    const parts: Part[] = [];
    if (eventMetrics.length) parts.push({ kind: 'events', metrics: eventMetrics });
    if (sessionMetrics.length) parts.push({ kind: 'sessions', metrics: sessionMetrics });
    return { primary: parts[0]!, secondary: parts.slice(1) };
  }
  const dimension = query.breakdown!;
  const rankBy = query.metrics.includes('visitors') ? 'visitors' : query.metrics[0]!;
  const bySource = { sessions: [] as MetricName[], events: [] as MetricName[], goal: [] as MetricName[] };
  let exitRate = false;
  for (const metric of query.metrics) {
    const source = dimension.metrics[metric]!;
    if (source === 'exit') exitRate = true;
    else bySource[source].push(metric);
  }
  const parts: Part[] = [];
  if (bySource.goal.length) {
    const goalMetrics = bySource.goal.filter((m) => m !== 'conversion_rate');
    // converters are the goal part's visitors; conversion_rate needs them too
    if (!goalMetrics.includes('visitors')) goalMetrics.push('visitors');
    parts.push({ kind: 'goal', metrics: goalMetrics, rankBy: rankBy === 'conversion_rate' ? 'visitors' : rankBy });
    if (bySource.goal.includes('conversion_rate')) parts.push({ kind: 'goal-total', metrics: ['visitors'] });
    return { primary: parts[0]!, secondary: parts.slice(1) };
  }
  if (exitRate && !bySource.sessions.includes('visits')) bySource.sessions.push('visits'); // exits
  const sessionPart: Part | undefined = bySource.sessions.length
    ? {
        kind: 'sessions',
        metrics: bySource.sessions.filter(SESSION_SIDE),
        groupSql: dimension.sessionSql!,
        ...(dimension.sessionSqlVaries ? { groupVaries: true } : {}),
        ...(dimension.groupsEvents ? { groupSql: dimension.eventSql!, groupsEvents: true } : {}),
      }
    : undefined;
  const eventPart: Part | undefined = bySource.events.length
    ? {
        kind: 'events',
        metrics: bySource.events.filter((m) => EVENT_METRIC_SQL[m] !== undefined),
        groupSql: dimension.eventSql!,
        ...(dimension.eventWhere ? { eventWhere: dimension.eventWhere } : {}),
      }
    : undefined;
  const rankSource = dimension.metrics[rankBy];
  if (rankSource === 'events' && eventPart) {
    eventPart.rankBy = rankBy;
    parts.push(eventPart);
    if (sessionPart) parts.push(sessionPart);
  } else {
    sessionPart!.rankBy = rankBy;
    parts.push(sessionPart!);
    if (eventPart) parts.push(eventPart);
  }
  // exit_rate's denominator: pageviews of the exit page, whatever exit page the filters name
  const exitPageviews: Part = {
    kind: 'events',
    metrics: ['pageviews'],
    groupSql: dimension.eventSql!,
    eventWhere: dimension.eventWhere!,
    ignoresFilters: ['exit_page'],
  };
  if (rankSource === 'exit') sessionPart!.exitPageviews = exitPageviews;
  else if (exitRate) parts.push(exitPageviews);
  return { primary: parts[0]!, secondary: parts.slice(1) };
}
