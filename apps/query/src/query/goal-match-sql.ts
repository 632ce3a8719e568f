import type { Params } from './compile-filters.js';
import type { SiteGoal } from './report-site.js';

/**
 * Which of a site's goals an event row converts, as SQL: an array of the matching
 * goals' positions (1-based) in `site.goals`.
 *
 * Each goal is its own condition with its own scalar parameter (`{gp3:String}`), so
 * the engine sees every pattern as a constant: compiled once per statement. The
 * earlier form indexed a parameter ARRAY of patterns inside a lambda
 * (`match(pathname, {goal_values:Array(String)}[i])`), which made ClickHouse
 * materialize the whole array for every row: a 2 KB pattern over 125k events took
 * ~700 MB (issue 29). Here a row holds at most one small integer per goal.
 */
export function goalMatchesSql(goals: readonly SiteGoal[], params: Params): string {
  const flags = goals.map((goal, index) => {
    const position = index + 1;
    if (goal.pagePath !== undefined) {
      params[`gp${index}`] = goalPattern(goal.pagePath);
      return `if(name = 'pageview' AND match(pathname, {gp${index}:String}), ${position}, 0)`;
    }
    params[`ge${index}`] = goal.eventName ?? '';
    return `if(name = {ge${index}:String}, ${position}, 0)`;
  });
  return `arrayFilter(i -> i > 0, CAST([${flags.join(', ')}] AS Array(UInt16)))`;
}

/**
 * Page goals: `*` matches any run of characters (a run of `*` is one wildcard);
 * everything else is literal. An anchored RE2 pattern: RE2 never backtracks.
 */
export function goalPattern(pagePath: string): string {
  const pieces = pagePath.split(/\*+/).map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `^${pieces.join('.*')}$`;
}
