import type { SessionAttributeSpec } from '@sightline/events-schema';
import { ATTRIBUTE_SQL, NO_PROPERTY, QUERIED_ATTRIBUTES, folderOf } from './columns-sql.js';
import type { MetricName } from './metrics.js';

/**
 * The dimension catalogue: every breakdown dimension, the metrics it computes (the
 * spec's table) and, per metric, which table computes it; the SQL of its value on
 * each table; whether rows carry geo `labels` and whether compare applies.
 *
 * Metric sources: `sessions` (collapsed sessions grouped by `sessionSql`), `events`
 * (event rows grouped by `eventSql`), `exit` (exit_rate: exits from sessions over
 * pageviews of the page from events), `goal` (event:goal, see compile-sql).
 */
export type MetricSource = 'sessions' | 'events' | 'exit' | 'goal';
export type GeoLabelKind = 'country' | 'region' | 'city';

export interface DimensionSpec {
  metrics: Partial<Record<MetricName, MetricSource>>;
  sessionSql?: string;
  eventSql?: string;
  labels?: GeoLabelKind;
  /** false: no comparison block (spec: event:status_code, event:goal) */
  compare: boolean;
  /** restrict event rows (e.g. pageviews only, custom events only) */
  eventWhere?: string;
  /**
   * `sessionSql` reads a column that changes between a session's versions (entry and
   * exit page); every other session attribute is fixed by the session's first event.
   */
  sessionSqlVaries?: true;
  /**
   * The sessions column a `hostname` filter compares (SEMANTICS: hostname is where
   * traffic arrived): the visit's entry hostname for source, referrer, channel, utm_*
   * and entry_page, its exit page's hostname for exit_page. Elsewhere a hostname
   * filter keeps the sessions with an event on a matching hostname.
   */
  hostnameFilterColumn?: 'hostname' | 'exit_hostname';
  /**
   * Group each event by `eventSql` and give each (value, session) its session's
   * metrics, so a visit counts under every value its events carry (event:hostname).
   */
  groupsEvents?: true;
}

export const TIME_DIMENSIONS = ['time', 'time:minute', 'time:hour', 'time:day', 'time:week', 'time:month'] as const;
export type TimeDimension = (typeof TIME_DIMENSIONS)[number];
export type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month';
export const INTERVAL_OF: Record<TimeDimension, Interval> = {
  time: 'day',
  'time:minute': 'minute',
  'time:hour': 'hour',
  'time:day': 'day',
  'time:week': 'week',
  'time:month': 'month',
};

const SESSION_ATTRIBUTE_METRICS = { visitors: 'sessions', visit_duration: 'sessions', bounce_rate: 'sessions' } as const;
/** A session attribute's breakdown; an acquisition attribute's hostname filter keeps the visits that entered on it. */
const attribute = (a: SessionAttributeSpec): DimensionSpec => ({
  metrics: SESSION_ATTRIBUTE_METRICS,
  sessionSql: ATTRIBUTE_SQL[a.name]!,
  compare: true,
  ...(a.labels ? { labels: a.labels } : {}),
  ...(a.acquisition ? { hostnameFilterColumn: 'hostname' as const } : {}),
});
const PAGE_METRICS = { visitors: 'events', pageviews: 'events', bounce_rate: 'sessions', time_on_page: 'events', scroll_depth: 'events' } as const;

export const DIMENSIONS: Record<string, DimensionSpec> = {
  // visit:<attribute> for every queried attribute of the catalogue (libs/events-schema/src/attributes.ts)
  ...Object.fromEntries(QUERIED_ATTRIBUTES.map((a) => [`visit:${a.name}`, attribute(a)])),
  'visit:entry_page': {
    metrics: { visitors: 'sessions', visits: 'sessions', visit_duration: 'sessions' },
    sessionSql: 'entry_page',
    sessionSqlVaries: true,
    hostnameFilterColumn: 'hostname',
    compare: true,
  },
  'visit:exit_page': {
    metrics: { visitors: 'sessions', visits: 'sessions', exit_rate: 'exit' },
    sessionSql: 'exit_page',
    sessionSqlVaries: true,
    hostnameFilterColumn: 'exit_hostname',
    eventSql: 'pathname',
    eventWhere: "name = 'pageview'",
    compare: true,
  },
  // bounce_rate of a page = over sessions grouped by entry page (SEMANTICS)
  'event:page': { metrics: PAGE_METRICS, eventSql: 'pathname', sessionSql: 'entry_page', sessionSqlVaries: true, compare: true },
  'event:folder': { metrics: PAGE_METRICS, eventSql: folderOf('pathname'), sessionSql: folderOf('entry_page'), sessionSqlVaries: true, compare: true },
  'event:hostname': {
    metrics: {
      visitors: 'sessions',
      visits: 'sessions',
      pageviews: 'sessions',
      visit_duration: 'sessions',
      bounce_rate: 'sessions',
      views_per_visit: 'sessions',
    },
    sessionSql: 'hostname',
    eventSql: 'hostname',
    groupsEvents: true,
    compare: true,
  },
  'event:status_code': {
    metrics: { pageviews: 'events' },
    eventSql: 'toString(status_code)',
    eventWhere: "name = 'pageview' AND status_code != 0",
    compare: false,
  },
  'event:name': { metrics: { visitors: 'events', events: 'events' }, eventSql: 'name', eventWhere: "name NOT IN ('pageview', 'engagement')", compare: true },
  'event:goal': { metrics: { visitors: 'goal', events: 'goal', conversion_rate: 'goal' }, compare: false },
};

export const PROPS_PREFIX = 'event:props:';
/** A property key is data (bound as {prop_key:String}); only its length is limited. */
export const PROP_KEY_MAX = 300;
export const propsDimension: DimensionSpec = {
  metrics: { visitors: 'events', events: 'events' },
  eventSql: `if(has(prop_keys, {prop_key:String}), prop_values[indexOf(prop_keys, {prop_key:String})], '${NO_PROPERTY}')`,
  eventWhere: "name NOT IN ('pageview', 'engagement')",
  compare: true,
};

export function isTimeDimension(name: string): name is TimeDimension {
  return (TIME_DIMENSIONS as readonly string[]).includes(name);
}
