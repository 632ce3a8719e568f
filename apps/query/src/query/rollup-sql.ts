import type { MetricName } from '../catalogue/metrics.js';
import { bucketKeySql, listBuckets } from './buckets.js';
import { toDateTime64, type CompileInput, type Statement } from './compile-sql.js';
import type { Params } from './compile-filters.js';
import type { Plan } from './plan.js';
import type { Window } from './resolve-dates.js';
import type { ReportSite } from './report-site.js';
import type { ValidQuery } from './validate.js';
import { addDays, startOfLocalDay } from './zoned-time.js';

/**
 * The hourly roll-ups (apps/ingest/clickhouse/0009_hourly_rollups.sql): per (site,
 * UTC hour, import) the exact uniqExact state of the non-engagement events' visitors,
 * their pageviews, and the sign-weighted sums of the sessions that start in the hour
 * (carry = 0) or started earlier and are still going at its start (carry = 1).
 *
 * A query is answered from them only when that gives today's numbers exactly
 * (`rollupAnswers`):
 * - an aggregate or a time series (hour, day, week, month) without filters, over a
 *   day window: the events part is the window's non-engagement events (visitors,
 *   pageviews), the sessions part the sessions overlapping it — those starting in it
 *   plus those carried into its first hour — a time series putting a session in the
 *   bucket of its start, a carried one in the first (as compile-sql.ts does);
 * - a visit:<attribute> breakdown without filters of the attributes rolled up in
 *   sessions_hourly_attributes (0010: the dashboard's first tabs), whose metrics all
 *   come from sessions: the same groups, ranking, paging and total as the sessions
 *   statement (the dimension's own SQL over the stored value);
 * - the window and every bucket boundary fall on whole UTC hours (true of every
 *   site whose timezone is a whole number of hours from UTC at those instants);
 * - the window lies within 1971..2104 (the roll-ups' DateTime range).
 * Anything else (filters, breakdowns, realtime, a half-hour timezone) runs today's
 * statements. Result columns are those of compile-sql.ts (`g`, `m_<metric>`).
 */
const HOUR_MS = 3_600_000;
const FIRST_MS = Date.UTC(1971, 0, 1);
const END_MS = Date.UTC(2105, 0, 1);

const EVENTS_ROLLUP_SQL: Partial<Record<MetricName, string>> = {
  visitors: 'uniqExactMerge(visitors)',
  pageviews: 'sum(pageviews)',
};

const SESSIONS_ROLLUP_SQL: Partial<Record<MetricName, string>> = {
  visits: 'sum(visits)',
  pageviews: 'sum(pageviews)',
  visit_duration: 'if(sum(visits) = 0, NULL, sum(duration) / sum(visits))',
  bounce_rate: 'if(sum(visits) = 0, NULL, 100 * sum(bounces) / sum(visits))',
  views_per_visit: 'if(sum(visits) = 0, NULL, sum(pageviews) / sum(visits))',
  engagement_time: 'if(sum(visits) = 0, NULL, sum(engagement_ms) / sum(visits) / 1000)',
};

/** The attributes sessions_hourly_attributes holds (migration 0010). */
const ROLLED_UP_ATTRIBUTES = new Set(['channel', 'source', 'country', 'browser', 'os', 'device']);

/** The rolled-up attribute a breakdown groups by, if any. */
function rolledUpAttribute(query: ValidQuery): string | undefined {
  const attribute = /^visit:([a-z_]+)$/.exec(query.dimension ?? '')?.[1];
  return attribute && ROLLED_UP_ATTRIBUTES.has(attribute) ? attribute : undefined;
}

const onHour = (ms: number) => ms % HOUR_MS === 0;

/** Whether the window's buckets (or the window alone, for an aggregate) start on whole UTC hours. */
function bucketsOnHours(query: ValidQuery, window: Window, site: ReportSite): boolean {
  if (!onHour(window.startMs) || !onHour(window.endMs)) return false;
  if (query.shape !== 'timeseries') return true;
  if (query.interval === 'hour') return listBuckets('hour', window, site.timezone, site.weekStart).every((b) => onHour(Number(b.key) * 1000));
  // day, week and month buckets start at local midnights
  for (let date = window.startDate; date <= window.endDate; date = addDays(date, 1)) {
    if (!onHour(startOfLocalDay(date, site.timezone))) return false;
  }
  return true;
}

/** Whether the roll-ups answer this query's window exactly as today's statements would. */
export function rollupAnswers(query: ValidQuery, plan: Plan, window: Window, site: ReportSite): boolean {
  if (window.kind !== 'days' || query.filters.length > 0) return false;
  if (query.shape === 'breakdown' && (!rolledUpAttribute(query) || plan.secondary.length > 0 || plan.primary.kind !== 'sessions' || plan.primary.groupVaries))
    return false;
  if (query.shape === 'timeseries' && query.interval === 'minute') return false;
  if (window.startMs < FIRST_MS || window.endMs > END_MS) return false;
  const parts = [plan.primary, ...plan.secondary];
  const supported = parts.every((p) =>
    p.kind === 'events'
      ? p.metrics.every((m) => EVENTS_ROLLUP_SQL[m] !== undefined)
      : p.kind === 'sessions' &&
        !p.exitPageviews &&
        !p.groupsEvents &&
        p.metrics.every((m) => SESSIONS_ROLLUP_SQL[m] !== undefined || (m === 'visitors' && query.shape === 'breakdown')),
  );
  return supported && bucketsOnHours(query, window, site);
}

function metricColumns(metrics: readonly MetricName[], catalogue: Partial<Record<MetricName, string>>): string {
  return metrics.map((m) => `${catalogue[m]!} AS m_${m}`).join(', ');
}

/**
 * A visit:<attribute> breakdown from sessions_hourly_attributes: the stored value read
 * under the attribute's column name, so the dimension's SQL (labels for empty values)
 * groups it as on sessions; restricted to given values (compare), else ranked and paged
 * with the distinct values' total, as compile-sql.ts's sessions statement.
 */
function attributeStatement(input: CompileInput, params: Params): Statement {
  const { query, part, values } = input;
  const attribute = rolledUpAttribute(query)!;
  params.attribute = attribute;
  const rows = `SELECT value AS ${attribute}, visitors, visits, pageviews, bounces, duration, engagement_ms FROM sessions_hourly_attributes WHERE site_id = {site_id:UInt64} AND attribute = {attribute:String} AND hour >= {start:DateTime64(3)} AND hour < {end:DateTime64(3)} AND (carry = 0 OR hour = {start:DateTime64(3)})`;
  const columns = part.metrics.map((m) => `${m === 'visitors' ? 'uniqExactMerge(visitors)' : SESSIONS_ROLLUP_SQL[m]!} AS m_${m}`).join(', ');
  let sql = `SELECT ${part.groupSql!} AS g, ${columns}${part.rankBy && !values ? ', count() OVER () AS total' : ''} FROM (${rows})`;
  if (values) {
    params.values = values;
    sql += ` WHERE ${part.groupSql!} IN {values:Array(String)}`;
  }
  sql += ' GROUP BY g HAVING sum(visits) > 0';
  if (part.rankBy && !values) {
    params.limit = query.limit;
    params.offset = query.offset;
    sql += ` ORDER BY m_${part.rankBy} DESC NULLS LAST, g ASC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
  }
  return { sql, params };
}

/** One roll-up statement for an events or sessions part of a query `rollupAnswers` accepted. */
export function compileRollupPart(input: CompileInput): Statement {
  const { query, part, window, site } = input;
  const params: Params = { site_id: site.siteId, start: toDateTime64(window.startMs), end: toDateTime64(window.endMs) };
  if (query.shape === 'breakdown') return attributeStatement(input, params);
  const grouped = query.shape === 'timeseries';
  if (grouped) Object.assign(params, { tz: site.timezone, week_start: site.weekStart, window_start_date: window.startDate });
  const group = grouped ? bucketKeySql(query.interval!, 'hour') : "''";
  if (part.kind === 'events') {
    const sql = `SELECT ${group} AS g, ${metricColumns(part.metrics, EVENTS_ROLLUP_SQL)} FROM events_hourly WHERE site_id = {site_id:UInt64} AND hour >= {start:DateTime64(3)} AND hour < {end:DateTime64(3)}${grouped ? ' GROUP BY g' : ''}`;
    return { sql, params };
  }
  // the sessions starting in the window, and those carried into its first hour (bucketed there)
  const where = 'site_id = {site_id:UInt64} AND hour >= {start:DateTime64(3)} AND hour < {end:DateTime64(3)} AND (carry = 0 OR hour = {start:DateTime64(3)})';
  const sql = `SELECT ${group} AS g, ${metricColumns(part.metrics, SESSIONS_ROLLUP_SQL)} FROM sessions_hourly WHERE ${where}${grouped ? ' GROUP BY g HAVING sum(visits) > 0' : ''}`;
  return { sql, params };
}

/** has_import of a window before the raw rows kept: imported non-engagement events in its hours. */
export function rollupHasImportStatement(window: Window, site: ReportSite): Statement {
  return {
    sql: 'SELECT count() > 0 AS has_import FROM (SELECT 1 FROM events_hourly WHERE site_id = {site_id:UInt64} AND hour >= {start:DateTime64(3)} AND hour < {end:DateTime64(3)} AND import_id > 0 LIMIT 1)',
    params: { site_id: site.siteId, start: toDateTime64(window.startMs), end: toDateTime64(window.endMs) },
  };
}
