import { storedValues } from '../catalogue/columns-sql.js';
import type { FilterOperator } from '../catalogue/filter-fields.js';
import type { ValidFilter } from './validate.js';
import { EVENTS_IN_WINDOW } from './window-sql.js';

/**
 * Filters → SQL conditions for one table, values bound as `{fN:Array(String)}` (a
 * value is data: commas, quotes, %, _ and backslashes match literally; `contains`
 * is a plain substring search, not LIKE). OR within a filter's values, AND across
 * filters. The window bounds `{start}`/`{end}` and `{site_id}` are bound by the
 * statement that embeds these conditions.
 */
export type Table = 'events' | 'sessions';
export type Params = Record<string, unknown>;

export function matchSql(expr: string, operator: FilterOperator, param: string): string {
  const values = `{${param}:Array(String)}`;
  switch (operator) {
    case 'is':
      return `${expr} IN ${values}`;
    case 'is_not':
      return `${expr} NOT IN ${values}`;
    case 'contains':
      return `multiSearchAny(${expr}, ${values})`;
    case 'does_not_contain':
      return `NOT multiSearchAny(${expr}, ${values})`;
  }
}

export interface CompiledFilters {
  conditions: string[];
  params: Params;
}

/**
 * `hostnameColumn`: on sessions, the column a `hostname` filter compares (a
 * breakdown's entry or exit hostname, dimensions.ts); without it the filter keeps
 * the sessions with an event on a matching hostname.
 */
export function compileFilters(filters: readonly ValidFilter[], table: Table, prefix = 'f', hostnameColumn?: string): CompiledFilters {
  const conditions: string[] = [];
  const params: Params = {};
  filters.forEach((filter, index) => {
    const param = `${prefix}${index}`;
    params[param] = filter.values;
    const { spec } = filter;
    if (spec.labelled && (filter.operator === 'is' || filter.operator === 'is_not')) {
      // same rows as the labelled expression, compared on the stored column (measured: QUERY-PERF.md)
      params[param] = storedValues(filter.values, spec.labelled.emptyLabel);
      conditions.push(matchSql(spec.labelled.column, filter.operator, param));
    } else if (table === 'events') {
      if (filter.field === 'event') {
        // keeps the sessions in which the custom event fired
        conditions.push(`session_id IN (SELECT session_id FROM events WHERE ${EVENTS_IN_WINDOW} AND ${matchSql('name', 'is', param)})`);
      } else if (spec.level === 'session-only') {
        conditions.push(
          `session_id IN (SELECT session_id FROM sessions WHERE site_id = {site_id:UInt64} AND ${matchSql(spec.sessionSql!, filter.operator, param)} GROUP BY session_id HAVING sum(sign) > 0)`,
        );
      } else {
        conditions.push(matchSql(spec.eventSql!, filter.operator, param));
      }
    } else if (filter.field === 'hostname' && hostnameColumn) {
      conditions.push(matchSql(hostnameColumn, filter.operator, param));
    } else if (spec.level === 'event') {
      // an event-level filter on sessions keeps whole sessions containing a matching event
      conditions.push(`session_id IN (SELECT session_id FROM events WHERE ${EVENTS_IN_WINDOW} AND ${matchSql(spec.eventSql!, filter.operator, param)})`);
    } else {
      conditions.push(matchSql(spec.sessionSql!, filter.operator, param));
    }
  });
  return { conditions, params };
}

/** With a page filter, bounce_rate counts only sessions that entered on a matching page. */
export function bounceScopeSql(filters: readonly ValidFilter[], prefix = 'f'): string {
  const scoped = filters
    .map((filter, index) => (filter.field === 'page' ? matchSql('entry_page', filter.operator, `${prefix}${index}`) : null))
    .filter((c): c is string => c !== null);
  return scoped.length ? scoped.join(' AND ') : '1';
}
