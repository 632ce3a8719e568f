import { FUNNEL_LIMITS, type FunnelStep } from '@sightline/query-contract';
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
 * 2. per visit (`session_id`), step 1's first time (`minIf`) and one array of the
 *    events converting a later step (each as its time × STEP_BITS + a bit per step it
 *    converts: one array state per visit instead of one per step, 21 % less CPU), then,
 *    for the visits that reached step 1, the greedy chain: step 1's first time, each
 *    next step's first time strictly after the previous one's (0: not reached): a
 *    chain exists exactly when this one does.
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

/** Room for the bits of steps 2..8 (a funnel's most) beside a time in one UInt64: ms since 1900 stay below 2^44 until 2457, and 2^44 × 2^7 < 2^64. */
const STEP_BITS = 2 ** (FUNNEL_LIMITS.stepsMax - 1);

export interface FunnelStatement {
  sql: string;
  params: Params;
}

/**
 * A step's condition on one event row. A page pattern is `match(pathname, goalPattern)`
 * (the goal's own regex); the two common shapes are stated without a regex, with the
 * same answer for every stored path: no `*` is equality, one trailing `*` is a prefix
 * (ClickHouse's `.` matches line breaks; a path that is not valid UTF-8 never matches
 * `.*`, so the prefix form asks for valid UTF-8 too). About a third of the statement's
 * row filtering was the regexes.
 */
function stepCondition(step: FunnelStep, index: number, params: Params): string {
  if (step.page_path !== undefined) {
    const path = step.page_path;
    const prefix = path.replace(/\*+$/, '');
    if (!path.includes('*')) {
      params[`sp${index}`] = path;
      return `(name = 'pageview' AND pathname = {sp${index}:String})`;
    }
    if (!prefix.includes('*')) {
      params[`sp${index}`] = prefix;
      return `(name = 'pageview' AND startsWith(pathname, {sp${index}:String}) AND isValidUTF8(pathname))`;
    }
    params[`sp${index}`] = goalPattern(path);
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
  const rowLevel = compileFilters(
    filters.filter((f) => f.spec.level !== 'event'),
    'events',
    'f',
  );
  const visitLevel = compileFilters(
    filters.filter((f) => f.spec.level === 'event'),
    'sessions',
    'e',
  );
  Object.assign(params, rowLevel.params, visitLevel.params);
  // the sort key's columns first (PREWHERE reads them alone); the steps' conditions then read `pathname` only for those rows
  const prewhere = [EVENTS_IN_WINDOW, 'name IN {step_names:Array(String)}'];
  const where = [`(${conditions.map((_, i) => `c${i + 1}`).join(' OR ')})`, ...rowLevel.conditions, ...visitLevel.conditions];

  const n = steps.length;
  const later = Array.from({ length: n - 1 }, (_, i) => i + 2);
  const flags = conditions.map((condition, i) => `${condition} AS c${i + 1}`).join(', ');
  // one array per visit for steps 2..n: each event's time × STEP_BITS + the bits of the steps it converts (bit k − 2: step k)
  const packed = later.length
    ? `groupArrayIf(ms * ${STEP_BITS} + (${later.map((k) => `c${k} * ${2 ** (k - 2)}`).join(' + ')}), ${later.map((k) => `c${k}`).join(' OR ')})`
    : "CAST([], 'Array(UInt64)')";
  // the greedy chain: step 1's first time, then each step's first time after the previous one's
  const times = [
    't1',
    ...later.map(
      (k) => `if(t${k - 1} = 0, 0, intDiv(arrayMin(arrayFilter(x -> bitTest(x, ${k - 2}) AND x >= (t${k - 1} + 1) * ${STEP_BITS}, a)), ${STEP_BITS})) AS t${k}`,
    ),
  ].join(',\n    ');
  const visitors = Array.from({ length: n }, (_, i) => `uniqExactIf(visitor_id, t${i + 1} > 0) AS v${i + 1}`);
  const medians = later.map((k) => `quantileExactInclusiveIf(0.5)(t${k} - t${k - 1}, t${k} > 0) AS m${k - 1}`);
  const sql = `
SELECT ${[...visitors, ...medians].join(', ')}
FROM (
  SELECT visitor_id, ${times}
  FROM (
    SELECT any(visitor_id) AS visitor_id, minIf(ms, c1) AS t1, ${packed} AS a
    FROM (
      SELECT visitor_id, session_id, toUInt64(toUnixTimestamp64Milli(timestamp) + ${EPOCH_1900_MS}) AS ms, ${flags}
      FROM events
      PREWHERE ${prewhere.join('\n        AND ')}
      WHERE ${where.join('\n        AND ')}
    )
    GROUP BY session_id
  )
  WHERE t1 > 0
)`;
  return { sql, params };
}
