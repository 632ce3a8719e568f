import type { SessionAttributeSpec } from '@sightline/events-schema';
import { ATTRIBUTE_SQL, QUERIED_ATTRIBUTES } from './columns-sql.js';

/**
 * The filter-field catalogue. `visit` fields are session attributes: they keep the
 * rows whose session attribute matches (sessions and events rows carry them under
 * the same SQL). `event` fields are properties of single events: on events they
 * match the row; on session metrics they keep whole sessions containing a matching
 * event (SEMANTICS). `entry_page`/`exit_page` live on sessions only; `event` is the
 * custom-event filter (is, one custom name).
 */
export type FilterLevel = 'visit' | 'session-only' | 'event';
export interface FilterFieldSpec {
  level: FilterLevel;
  /** on sessions rows (visit, session-only) */
  sessionSql?: string;
  /** on events rows (visit, event) */
  eventSql?: string;
  /** the bare column and its empty value's label, when the SQL is that label mapping (is / is_not compare the column) */
  labelled?: { column: string; emptyLabel: string };
}

const visit = (a: SessionAttributeSpec): FilterFieldSpec => ({
  level: 'visit',
  sessionSql: ATTRIBUTE_SQL[a.name]!,
  eventSql: ATTRIBUTE_SQL[a.name]!,
  ...(a.ts === 'string' ? { labelled: { column: a.name, emptyLabel: a.emptyLabel } } : {}),
});

export const FILTER_FIELDS: Record<string, FilterFieldSpec> = {
  // every queried attribute of the catalogue (libs/events-schema/src/attributes.ts); geo fields take codes (the stored values), never display names
  ...Object.fromEntries(QUERIED_ATTRIBUTES.map((a) => [a.name, visit(a)])),
  entry_page: { level: 'session-only', sessionSql: 'entry_page' },
  exit_page: { level: 'session-only', sessionSql: 'exit_page' },
  page: { level: 'event', eventSql: 'pathname' },
  hostname: { level: 'event', eventSql: 'hostname' },
  code: { level: 'event', eventSql: 'toString(status_code)' },
  event: { level: 'event', eventSql: 'name' },
};

export const FILTER_OPERATORS = ['is', 'is_not', 'contains', 'does_not_contain'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
