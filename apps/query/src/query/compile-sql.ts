import type { Interval } from '../catalogue/dimensions.js';
import { EVENT_METRIC_SQL, FLAT_EVENT_METRIC_SQL, FLAT_SESSION_METRIC_SQL, SESSION_METRIC_SQL, type MetricName } from '../catalogue/metrics.js';
import { bucketKeySql } from './buckets.js';
import { bounceScopeSql, compileFilters, type Params } from './compile-filters.js';
import { goalMatchesSql } from './goal-match-sql.js';
import type { Part } from './plan.js';
import type { Window } from './resolve-dates.js';
import { EVENTS_IN_WINDOW, SESSIONS_IN_WINDOW } from './window-sql.js';
import type { ReportSite } from './report-site.js';
import type { ValidFilter, ValidQuery } from './validate.js';

/**
 * Step 5: one part → ONE parameterized ClickHouse statement. Values are bound
 * (`{name:Type}`), never spliced; identifiers and expressions come only from the
 * catalogues. Result columns: `g` (group value), `m_<metric>`, and on a ranked part
 * `total` (distinct values before paging).
 *
 * Sessions are read sign-aware, never with FINAL: the inner query groups each
 * session's rows (`sum(x * sign)`, `HAVING sum(sign) > 0`) when distinct visitors are
 * asked over a value that changes between versions (entry/exit page); otherwise the
 * rows are read flat, sign-weighted (FLAT_SESSION_METRIC_SQL).
 * Event parts asking only counts and distinct visitors read the rows flat too
 * (FLAT_EVENT_METRIC_SQL). Plans
 * and figures: load-tests/bench/QUERY-PERF.md.
 */
export interface Statement {
  sql: string;
  params: Params;
}

export interface CompileInput {
  query: ValidQuery;
  part: Part;
  window: Window;
  site: ReportSite;
  /** restrict the groups (secondary parts, compare windows) */
  values?: string[];
}

/** A UTC instant as a DateTime64(3) parameter. */
export const toDateTime64 = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function metricColumns(metrics: readonly MetricName[], catalogue: Partial<Record<MetricName, string>>): string {
  return metrics.map((m) => `${catalogue[m]!} AS m_${m}`).join(', ');
}

/** The restriction to given group values, and the ORDER/LIMIT of a ranked part. */
function outerClauses(input: CompileInput, params: Params, grouped: boolean, valuesFilter: boolean, having?: string): string {
  const { part, values, query } = input;
  let sql = '';
  if (values && valuesFilter) sql += ' WHERE g IN {values:Array(String)}';
  if (grouped) sql += ' GROUP BY g';
  if (grouped && having) sql += ` HAVING ${having}`;
  if (part.rankBy && !values) {
    params.limit = query.limit;
    params.offset = query.offset;
    sql += ` ORDER BY m_${part.rankBy} DESC NULLS LAST, g ASC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
  }
  return sql;
}

/**
 * A restricted breakdown part also filters its rows by the group value, so only the
 * listed groups are read and collapsed: exact, since a row's group value is a
 * function of the row (a session's cancelled versions come in +1/−1 pairs of equal
 * rows, which a row filter keeps or drops together).
 */
function valuesCondition(input: CompileInput, params: Params): string[] {
  const { values, part, query } = input;
  if (!values || query.shape !== 'breakdown' || !part.groupSql) return [];
  params.values = values;
  return [`${part.groupSql} IN {values:Array(String)}`];
}

function groupExpression(input: CompileInput, timeColumn: string): string | undefined {
  const { query, part } = input;
  if (query.shape === 'timeseries') return bucketKeySql(query.interval as Interval, timeColumn);
  return part.groupSql;
}

function baseParams(input: CompileInput): Params {
  const { window, site, query } = input;
  const params: Params = { site_id: site.siteId, start: toDateTime64(window.startMs), end: toDateTime64(window.endMs) };
  if (query.shape === 'timeseries') Object.assign(params, { tz: site.timezone, week_start: site.weekStart, window_start_date: window.startDate });
  if (query.propKey !== undefined) params.prop_key = query.propKey;
  return params;
}

function sessionsStatement(input: CompileInput): Statement {
  const { query, part } = input;
  const params = baseParams(input);
  const filters = compileFilters(query.filters, 'sessions', 'f', query.breakdown?.hostnameFilterColumn);
  Object.assign(params, filters.params);
  const total = part.rankBy && !input.values ? ', count() OVER () AS total' : '';
  if (part.groupsEvents) {
    const inner = sessionsByEventValue(input, params, [SESSIONS_IN_WINDOW, ...filters.conditions].join(' AND '));
    return { sql: `SELECT g, ${metricColumns(part.metrics, SESSION_METRIC_SQL)}${total} FROM (${inner})${outerClauses(input, params, true, false)}`, params };
  }
  const group = groupExpression(input, 'greatest(start, {start:DateTime64(3)})');
  const where = [SESSIONS_IN_WINDOW, ...filters.conditions, ...valuesCondition(input, params)].join(' AND ');
  // entry/exit page change between versions: with them, distinct visitors need the per-session step
  const varies = part.groupVaries === true || query.filters.some((f) => f.spec.level === 'session-only');
  if (part.metrics.every((m) => FLAT_SESSION_METRIC_SQL[m] !== undefined && !(m === 'visitors' && varies))) {
    // sums need no per-session step; a group whose sessions all moved elsewhere sums to 0 and is dropped
    // the scope only where a metric reads it: a plain read stays a statement starting with SELECT
    const scope = part.metrics.some((m) => FLAT_SESSION_METRIC_SQL[m]!.includes('bounce_scope'))
      ? `WITH ${bounceScopeSql(query.filters)} AS bounce_scope `
      : '';
    const sql = `${scope}SELECT ${group ?? "''"} AS g, ${metricColumns(part.metrics, FLAT_SESSION_METRIC_SQL)}${total} FROM sessions WHERE ${where}${outerClauses(input, params, group !== undefined, false, 'sum(sign) > 0')}`;
    return { sql, params };
  }
  // Grouped by (group, session, bounce scope), not collapsed per session with argMax:
  // each cancelled version is a +1/−1 pair of equal rows, so within any group only the
  // current version's row leaves sum(sign) = 1, whatever the group expression reads.
  const inner = [
    `SELECT ${group ?? "''"} AS g`,
    'session_id',
    'any(visitor_id) AS visitor_id',
    'sum(pageviews * sign) AS pageviews',
    'sum(is_bounce * sign) AS is_bounce',
    'sum(duration * sign) AS duration',
    'sum(engagement_ms * sign) AS engagement_ms',
    `${bounceScopeSql(query.filters)} AS bounce_scope`,
  ].join(', ');
  const sql = `SELECT ${group ? 'g' : 'any(g) AS g'}, ${metricColumns(part.metrics, SESSION_METRIC_SQL)}${total} FROM (${inner} FROM sessions WHERE ${where} GROUP BY g, session_id, bounce_scope HAVING sum(sign) > 0)${outerClauses(input, params, group !== undefined, false)}`;
  return { sql, params };
}

/** The filters a part applies: all but the fields it ignores. */
function partFilters(input: CompileInput): ValidFilter[] {
  const ignored = input.part.ignoresFilters ?? [];
  return input.query.filters.filter((f) => !ignored.includes(f.field));
}

/**
 * The per-(value, session) rows of a dimension that groups events (event:hostname):
 * each session's collapsed row once per value among its non-engagement events in the
 * window, with that value's pageviews, so a visit that crosses two hostnames counts
 * under both. A hostname filter also keeps only the matching events' values.
 */
function sessionsByEventValue(input: CompileInput, params: Params, sessionsWhere: string): string {
  const { query, part, values } = input;
  const hostFilters = compileFilters(
    query.filters.filter((f) => f.field === 'hostname'),
    'events',
    'h',
  );
  Object.assign(params, hostFilters.params);
  const eventsWhere = [EVENTS_IN_WINDOW, "name != 'engagement'", ...hostFilters.conditions];
  if (values) {
    params.values = values;
    eventsWhere.push(`${part.groupSql!} IN {values:Array(String)}`);
  }
  const sessions = [
    'SELECT session_id',
    'any(visitor_id) AS visitor_id',
    'sum(is_bounce * sign) AS is_bounce',
    'sum(duration * sign) AS duration',
    'sum(engagement_ms * sign) AS engagement_ms',
    `${bounceScopeSql(query.filters)} AS bounce_scope`,
  ].join(', ');
  const byValue = `SELECT ${part.groupSql!} AS g, session_id, countIf(name = 'pageview') AS pageviews FROM events WHERE ${eventsWhere.join(' AND ')} GROUP BY g, session_id`;
  return `SELECT g, session_id, visitor_id, pageviews, is_bounce, duration, engagement_ms, bounce_scope FROM (${sessions} FROM sessions WHERE ${sessionsWhere} GROUP BY session_id, bounce_scope HAVING sum(sign) > 0) AS s INNER JOIN (${byValue}) AS e USING session_id`;
}

function eventsStatement(input: CompileInput, filterPrefix = 'f'): Statement {
  const { query, part } = input;
  const params = baseParams(input);
  const filters = compileFilters(partFilters(input), 'events', filterPrefix);
  Object.assign(params, filters.params);
  const group = groupExpression(input, 'timestamp');
  const where = [EVENTS_IN_WINDOW, ...(part.eventWhere ? [`(${part.eventWhere})`] : []), ...filters.conditions, ...valuesCondition(input, params)].join(
    ' AND ',
  );
  const total = part.rankBy && !input.values ? ', count() OVER () AS total' : '';
  if (query.shape !== 'breakdown' && part.metrics.length === 1 && part.metrics[0] === 'pageviews') {
    // pageviews alone (an aggregate's visitors read from sessions): the key's `name` reads
    // pageview rows only; a bucket without any is zero-filled by the caller
    const sql = `SELECT ${group ?? "''"} AS g, count() AS m_pageviews FROM events WHERE ${where} AND name = 'pageview'${outerClauses(input, params, group !== undefined, false)}`;
    return { sql, params };
  }
  if (part.metrics.every((m) => FLAT_EVENT_METRIC_SQL[m] !== undefined)) {
    // Counts and distinct visitors need no per-session step. Engagement rows count in
    // none of them, so they are skipped by the sort key's `name`: a page whose only
    // rows in the window are engagement events is no breakdown row here (it is one,
    // with its time on page, when time_on_page or scroll_depth is asked).
    const sql = `SELECT ${group ?? "''"} AS g, ${metricColumns(part.metrics, FLAT_EVENT_METRIC_SQL)}${total} FROM events WHERE ${where} AND name != 'engagement'${outerClauses(input, params, group !== undefined, false)}`;
    return { sql, params };
  }
  const inner = [
    `SELECT ${group ?? "''"} AS g`,
    'session_id',
    'any(visitor_id) AS visitor_id',
    "countIf(name = 'pageview') AS pv",
    "countIf(name != 'engagement') AS ev",
    "sumIf(engagement_ms, name = 'engagement') AS eng",
    'maxIf(scroll_depth, scroll_depth <= 100) AS scroll',
    'countIf(scroll_depth <= 100) > 0 AS has_scroll',
  ].join(', ');
  const sql = `SELECT ${group ? 'g' : 'any(g) AS g'}, ${metricColumns(part.metrics, EVENT_METRIC_SQL)}${total} FROM (${inner} FROM events WHERE ${where} GROUP BY g, session_id)${outerClauses(input, params, group !== undefined, false)}`;
  return { sql, params };
}

function goalStatement(input: CompileInput): Statement {
  const { query, part, site } = input;
  const params = baseParams(input);
  const filters = compileFilters(query.filters, 'events');
  Object.assign(params, filters.params, { goal_names: site.goals.map((g) => g.displayName) });
  // only rows that can match a goal are read: the custom events named by event goals (the
  // sort key's `name` skips the other kinds' granules), and pageviews when page goals exist
  const eventNames = site.goals.filter((g) => g.pagePath === undefined).map((g) => g.eventName ?? '');
  const hasPageGoal = site.goals.some((g) => g.pagePath !== undefined);
  params.goal_event_names = eventNames;
  const candidates = hasPageGoal ? "(name IN {goal_event_names:Array(String)} OR name = 'pageview')" : 'name IN {goal_event_names:Array(String)}';
  const where = [EVENTS_IN_WINDOW, "name != 'engagement'", candidates, ...filters.conditions].join(' AND ');
  const matches = goalMatchesSql(site.goals, params);
  const columns = part.metrics.map((m) => (m === 'visitors' ? 'uniqExact(visitor_id) AS m_visitors' : 'count() AS m_events')).join(', ');
  const total = part.rankBy && !input.values ? ', count() OVER () AS total' : '';
  const sql = `SELECT g, ${columns}${total} FROM (SELECT {goal_names:Array(String)}[arrayJoin(${matches})] AS g, visitor_id FROM events WHERE ${where})${outerClauses(input, params, true, true)}`;
  return { sql, params };
}

/**
 * A breakdown ranked by exit_rate: exits per exit page (the sessions part) joined with
 * the page's pageviews, so the ratio orders and pages the rows. The pageviews read
 * with their own filter parameters (`x…`): they skip the `exit_page` filters.
 */
function exitRankedStatement(input: CompileInput): Statement {
  const { part, values } = input;
  const unranked: Part = { ...part };
  delete unranked.rankBy;
  delete unranked.exitPageviews;
  const exits = sessionsStatement({ ...input, part: unranked });
  const pageviews = eventsStatement({ ...input, part: part.exitPageviews! }, 'x');
  const params: Params = { ...exits.params, ...pageviews.params };
  const ranked = !values;
  const exitRate = 'if(m_pageviews = 0, NULL, 100 * m_visits / m_pageviews)';
  let sql = `SELECT g, ${part.metrics.map((m) => `m_${m}`).join(', ')}, m_pageviews, ${exitRate} AS m_exit_rate${ranked ? ', count() OVER () AS total' : ''} FROM (${exits.sql}) AS s LEFT JOIN (${pageviews.sql}) AS p USING g`;
  if (ranked) {
    params.limit = input.query.limit;
    params.offset = input.query.offset;
    sql += ' ORDER BY m_exit_rate DESC NULLS LAST, g ASC LIMIT {limit:UInt32} OFFSET {offset:UInt32}';
  }
  return { sql, params };
}

export function compilePart(input: CompileInput): Statement {
  switch (input.part.kind) {
    case 'sessions':
      return input.part.exitPageviews ? exitRankedStatement(input) : sessionsStatement(input);
    case 'events':
      return eventsStatement(input);
    case 'goal':
      return goalStatement(input);
    case 'goal-total': {
      // all visitors of the window (the denominator of conversion_rate)
      const total = { ...input, values: undefined, query: { ...input.query, shape: 'aggregate' as const } };
      if (input.part.fromSessions) return sessionsStatement({ ...total, part: { kind: 'sessions', metrics: ['visitors'] } });
      return eventsStatement({ ...total, part: { kind: 'events', metrics: ['visitors'] } });
    }
  }
}

export function hasImportStatement(window: Window, site: ReportSite): Statement {
  return {
    sql: `SELECT count() > 0 AS has_import FROM (SELECT 1 FROM events WHERE ${EVENTS_IN_WINDOW} AND import_id > 0 LIMIT 1)`,
    params: { site_id: site.siteId, start: toDateTime64(window.startMs), end: toDateTime64(window.endMs) },
  };
}
