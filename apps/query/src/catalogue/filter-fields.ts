import { ATTRIBUTE_SQL, EMPTY_LABELS, type AttributeField } from './columns-sql.js';

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

const visit = (field: AttributeField): FilterFieldSpec => ({
  level: 'visit', sessionSql: ATTRIBUTE_SQL[field], eventSql: ATTRIBUTE_SQL[field],
  ...(field in EMPTY_LABELS ? { labelled: { column: field, emptyLabel: EMPTY_LABELS[field as keyof typeof EMPTY_LABELS] } } : {}),
});

export const FILTER_FIELDS: Record<string, FilterFieldSpec> = {
  browser: visit('browser'), browser_version: visit('browser_version'), os: visit('os'), os_version: visit('os_version'), device: visit('device'),
  // geo fields take codes (the stored values), never display names
  country: visit('country'), region: visit('region'), city: visit('city'),
  utm_source: visit('utm_source'), utm_medium: visit('utm_medium'), utm_campaign: visit('utm_campaign'), utm_content: visit('utm_content'), utm_term: visit('utm_term'),
  source: visit('source'), channel: visit('channel'), referrer: visit('referrer'),
  entry_page: { level: 'session-only', sessionSql: 'entry_page' },
  exit_page: { level: 'session-only', sessionSql: 'exit_page' },
  page: { level: 'event', eventSql: 'pathname' },
  hostname: { level: 'event', eventSql: 'hostname' },
  code: { level: 'event', eventSql: 'toString(status_code)' },
  event: { level: 'event', eventSql: 'name' },
};

export const FILTER_OPERATORS = ['is', 'is_not', 'contains', 'does_not_contain'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
