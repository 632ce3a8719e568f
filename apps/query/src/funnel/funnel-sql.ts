import type { FunnelStep } from '@sightline/query-contract';
import { compileFilters, type Params } from '../query/compile-filters.js';
import { toDateTime64 } from '../query/compile-sql.js';
import { goalPattern } from '../query/goal-match-sql.js';
import type { ReportSite } from '../query/report-site.js';
import type { ValidFilter } from '../query/validate.js';
import type { Window } from '../query/resolve-dates.js';
import { EVENTS_IN_WINDOW } from '../query/window-sql.js';

/**
 * A funnel report's one statement for one window (README "Funnels" states the
 * semantics this implements):
 *
 * 1. the window's event rows of the site that convert any step (`name IN` the steps'
 *    event names first, so the sort key's `name` skips the other kinds), with the
 *    filters (visit fields on the row; event fields keep the visits with a matching
 *    event in the window, as for session metrics);
 * 2. per visit (`session_id`), each step's times (`groupArrayIf`), then the greedy
 *    chain: step 1's first time, each next step's first time strictly after the
 *    previous one's (0: not reached): a chain exists exactly when this one does.
 *    Where no two step events share a millisecond it is the level ClickHouse's
 *    `windowFunnel(w, 'strict_increase')` finds with a window wider than any visit
 *    (run-funnel.chdb.test.ts holds the two to the same answers); with ties,
 *    windowFunnel lets a repeated step-1 event at a step-2 event's millisecond restart
 *    the chain and loses the one from the earlier step 1. It also gives the times the
 *    medians need, and costs about 35 % less CPU than windowFunnel plus the times.
 *    Steps may be separated by other events; a step repeated or reached out of order
 *    does not count until its predecessor has been reached; one event never completes
 *    two steps;
 * 3. over the visits: step n's visitors are the distinct visitors with a visit that
 *    reached step n (a step reached only in another visit does not count), and the
 *    exact median (interpolated between the two middle values) of `t{n+1} − t{n}`
 *    over the visits that reached step n+1.
 *
 * Patterns and names are scalar parameters (one per step), as in goal-match-sql.ts.
 */

/** Times as milliseconds since 1900-01-01 (the earliest stored date), so every one is > 0 and 0 means "not reached". */
const EPOCH_1900_MS = 2_208_988_800_000;

export interface FunnelStatement {
  sql: string;
  params: Params;
}

function stepCondition(step: FunnelStep, index: number, params: Params): string {
  if (step.page_path !== undefined) {
    params[`sp${index}`] = goalPattern(step.page_path);
    return `(name = 'pageview' AND match(pathname, {sp${index}:String}))`;
  }
  params[`se${index}`] = step.event_name ?? '';
  return `(name = {se${index}:String})`;
}

export function funnelStatement(steps: readonly FunnelStep[], filters: readonly ValidFilter[], window: Window, site: ReportSite): FunnelStatement {
  const params: Params = { site_id: site.siteId, start: toDateTime64(window.startMs), end: toDateTime64(window.endMs) };
  const conditions = steps.map((step, index) => stepCondition(step, index, params));
  params.step_names = [...new Set(steps.map((step) => (step.page_path !== undefined ? 'pageview' : step.event_name!)))];
  // visit fields (and entry/exit pages) match the row; event fields keep whole visits with a matching event
  const rowLevel = compileFilters(filters.filter((f) => f.spec.level !== 'event'), 'events', 'f');
  const visitLevel = compileFilters(filters.filter((f) => f.spec.level === 'event'), 'sessions', 'e');
  Object.assign(params, rowLevel.params, visitLevel.params);
  const where = [EVENTS_IN_WINDOW, 'name IN {step_names:Array(String)}', `(${conditions.map((_, i) => `c${i + 1}`).join(' OR ')})`, ...rowLevel.conditions, ...visitLevel.conditions];

  const n = steps.length;
  const range = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
  const flags = conditions.map((condition, i) => `${condition} AS c${i + 1}`).join(', ');
  const arrays = range(n).map((i) => `groupArrayIf(ms, c${i}) AS a${i}`).join(', ');
  // the greedy chain: step 1's first time, then each step's first time after the previous one's
  const times = range(n).map((i) => (i === 1 ? 'arrayMin(a1) AS t1' : `if(t${i - 1} = 0, 0, arrayMin(arrayFilter(x -> x > t${i - 1}, a${i}))) AS t${i}`)).join(',\n    ');
  const visitors = range(n).map((i) => `uniqExactIf(visitor_id, t${i} > 0) AS v${i}`);
  const medians = range(n - 1).map((i) => `quantileExactInclusiveIf(0.5)(t${i + 1} - t${i}, t${i + 1} > 0) AS m${i}`);
  const sql = `
SELECT ${[...visitors, ...medians].join(', ')}
FROM (
  SELECT visitor_id, ${times}
  FROM (
    SELECT any(visitor_id) AS visitor_id, ${arrays}
    FROM (
      SELECT visitor_id, session_id, toUInt64(toUnixTimestamp64Milli(timestamp) + ${EPOCH_1900_MS}) AS ms, ${flags}
      FROM events
      WHERE ${where.join('\n        AND ')}
    )
    GROUP BY session_id
  )
)`;
  return { sql, params };
}
