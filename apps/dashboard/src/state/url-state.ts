/**
 * The dashboard's whole view state and its URL form, readable by a person:
 * `?period=30d&f=is,country,DE&compare=previous&interval=day&metric=visitors`.
 * A filter is `f=<operator>,<field>,<values>`: the values are everything after the
 * second comma, so a value may hold commas; several values (the API's OR) are
 * separated by `|`, a value's own `|` and `\` written `\|` and `\\`
 * (`f=is,country,DE|FR`). Defaults are left out of the URL (period always stays,
 * so a copied link says what it shows). Pure: no DOM.
 */
export const PERIODS = ['realtime', 'day', 'yesterday', '7d', '28d', '30d', 'month', 'last_month', '12mo', '366d', 'custom'] as const;
/** Older links' `period=all`: the API's windows stop at 366 days, so it is read as what it showed. */
const PERIOD_ALIASES: Record<string, Period> = { all: '366d' };
/** The API's longest explicit date range, in days (spec "Date ranges"). */
export const MAX_RANGE_DAYS = 366;
export type Period = (typeof PERIODS)[number];

export const COMPARES = ['off', 'previous', 'year'] as const;
export type CompareMode = (typeof COMPARES)[number];

export const INTERVALS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The metrics the top stats show and the graph can plot (all time-series metrics of the API). */
export const GRAPH_METRICS = ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'] as const;
export type GraphMetric = (typeof GRAPH_METRICS)[number];

/** The API's filter fields and operators (spec "Filters"). */
export const FILTER_FIELDS = [
  'page',
  'entry_page',
  'exit_page',
  'hostname',
  'source',
  'channel',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'country',
  'region',
  'city',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'device',
  'screen',
  'code',
  'event',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export const FILTER_OPERATORS = ['is', 'is_not', 'contains', 'does_not_contain'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface Filter {
  operator: FilterOperator;
  field: FilterField;
  /** one or more, combined with OR (`is_not`: none of them); the event filter takes exactly one */
  values: string[];
}

export interface DashboardState {
  period: Period;
  /** custom range, YYYY-MM-DD, inclusive */
  from?: string;
  to?: string;
  compare: CompareMode;
  /** absent: the period's default interval */
  interval?: Interval;
  metric: GraphMetric;
  filters: Filter[];
}

export const DEFAULT_STATE: DashboardState = { period: '30d', compare: 'off', metric: 'visitors', filters: [] };

/** Bounds that keep a hand-edited URL from building an oversized query (API: 20 filters, 100 values, 1000 characters). */
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUES = 100;
export const MAX_FILTER_VALUE = 1000;
export const VALUE_SEPARATOR = '|';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isOneOf = <T extends string>(list: readonly T[], value: string | null): value is T => value !== null && (list as readonly string[]).includes(value);

/** Values → their URL text: joined by `|`, each value's `\` and `|` escaped with a backslash. */
export function joinValues(values: readonly string[]): string {
  return values.map((v) => v.replace(/[\\|]/g, (c) => `\\${c}`)).join(VALUE_SEPARATOR);
}

/** The URL text → values: an unescaped `|` separates, `\x` is a literal x (a trailing `\` stays). */
export function splitValues(text: string): string[] {
  const values: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) current += text[++i]!;
    else if (c === VALUE_SEPARATOR) {
      values.push(current);
      current = '';
    } else current += c;
  }
  values.push(current);
  return values;
}

/** Drops empty and repeated values, keeps the first MAX_FILTER_VALUES; undefined if one is too long. */
export function cleanValues(values: readonly string[]): string[] | undefined {
  if (values.some((v) => v.length > MAX_FILTER_VALUE)) return undefined;
  return [...new Set(values.filter((v) => v !== ''))].slice(0, MAX_FILTER_VALUES);
}

function validDate(date: string): boolean {
  const at = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === date;
}

/**
 * A custom range's end, pulled in to the API's 366 days from `from`, so the URL
 * never names dates the page does not show (YYYY-MM-DD, from ≤ to).
 */
export function clampRangeEnd(from: string, to: string): string {
  const last = new Date(`${from}T00:00:00Z`);
  last.setUTCDate(last.getUTCDate() + MAX_RANGE_DAYS - 1);
  const lastDate = last.toISOString().slice(0, 10);
  return to > lastDate ? lastDate : to;
}

export function parseFilter(text: string): Filter | undefined {
  const first = text.indexOf(',');
  const second = first < 0 ? -1 : text.indexOf(',', first + 1);
  if (second < 0) return undefined;
  const operator = text.slice(0, first);
  const field = text.slice(first + 1, second);
  const values = cleanValues(splitValues(text.slice(second + 1)));
  if (!isOneOf(FILTER_OPERATORS, operator) || !isOneOf(FILTER_FIELDS, field) || !values?.length) return undefined;
  if (field === 'event' && (operator !== 'is' || values.length !== 1)) return undefined;
  return { operator, field, values };
}

export function filterText(filter: Filter): string {
  return `${filter.operator},${filter.field},${joinValues(filter.values)}`;
}

export function parseState(search: string): DashboardState {
  const params = new URLSearchParams(search);
  const state: DashboardState = { ...DEFAULT_STATE, filters: [] };
  const asked = params.get('period');
  const period = asked !== null && Object.hasOwn(PERIOD_ALIASES, asked) ? PERIOD_ALIASES[asked]! : asked;
  if (isOneOf(PERIODS, period)) state.period = period;
  if (state.period === 'custom') {
    const from = params.get('from');
    const to = params.get('to');
    if (from && to && DATE.test(from) && DATE.test(to) && from <= to && validDate(from) && validDate(to)) {
      state.from = from;
      state.to = clampRangeEnd(from, to);
    } else {
      state.period = DEFAULT_STATE.period;
    }
  }
  const compare = params.get('compare');
  if (isOneOf(COMPARES, compare)) state.compare = compare;
  const interval = params.get('interval');
  if (isOneOf(INTERVALS, interval)) state.interval = interval;
  const metric = params.get('metric');
  if (isOneOf(GRAPH_METRICS, metric)) state.metric = metric;
  for (const text of params.getAll('f')) {
    const filter = parseFilter(text);
    if (filter && state.filters.length < MAX_FILTERS && !state.filters.some((f) => sameFilter(f, filter))) state.filters.push(filter);
  }
  return state;
}

/** The query string (with `?`, or '' for nothing), keys in a fixed order; commas and `|` stay readable. */
export function serializeState(state: DashboardState, keep: Record<string, string> = {}): string {
  const parts: string[] = [];
  const put = (key: string, value: string) => parts.push(`${key}=${encodeValue(value)}`);
  for (const [key, value] of Object.entries(keep)) put(key, value);
  put('period', state.period);
  if (state.period === 'custom' && state.from && state.to) {
    put('from', state.from);
    put('to', state.to);
  }
  for (const filter of state.filters) put('f', filterText(filter));
  if (state.compare !== DEFAULT_STATE.compare) put('compare', state.compare);
  if (state.interval) put('interval', state.interval);
  if (state.metric !== DEFAULT_STATE.metric) put('metric', state.metric);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** encodeURIComponent, then give back the characters that are safe in a query value and easier to read. */
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/g, ',').replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%7C/g, '|');
}

export function sameFilter(a: Filter, b: Filter): boolean {
  return a.operator === b.operator && a.field === b.field && a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]);
}

/** Adds a filter, replacing an `is` filter on the same field (a row click narrows, never contradicts). */
export function withFilter(state: DashboardState, filter: Filter): DashboardState {
  const rest = state.filters.filter((f) => !(f.field === filter.field && (f.operator === 'is' || filter.operator === 'is' || sameFilter(f, filter))));
  return { ...state, filters: [...rest, filter].slice(0, MAX_FILTERS) };
}

export function withoutFilter(state: DashboardState, filter: Filter): DashboardState {
  return { ...state, filters: state.filters.filter((f) => !sameFilter(f, filter)) };
}

/** The API's filter objects. */
export function apiFilters(filters: readonly Filter[]): { field: string; operator: string; values: string[] }[] {
  return filters.map((f) => ({ field: f.field, operator: f.operator, values: [...f.values] }));
}
