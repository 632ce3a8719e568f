/**
 * The dashboard's whole view state and its URL form, readable by a person:
 * `?period=30d&f=is,country,DE&compare=previous&interval=day&metric=visitors`.
 * A filter is `f=<operator>,<field>,<value>`: the value is everything after the
 * second comma, so a value may hold commas. Defaults are left out of the URL
 * (period always stays, so a copied link says what it shows). Pure: no DOM.
 */
export const PERIODS = ['realtime', 'day', 'yesterday', '7d', '28d', '30d', 'month', 'last_month', '12mo', 'all', 'custom'] as const;
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
  'page', 'entry_page', 'exit_page', 'hostname', 'source', 'channel', 'referrer',
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term',
  'country', 'region', 'city', 'browser', 'browser_version', 'os', 'os_version', 'device', 'code', 'event',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export const FILTER_OPERATORS = ['is', 'is_not', 'contains', 'does_not_contain'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface Filter {
  operator: FilterOperator;
  field: FilterField;
  value: string;
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

/** Bounds that keep a hand-edited URL from building an oversized query (API: 20 filters, 1000 characters). */
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUE = 1000;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isOneOf = <T extends string>(list: readonly T[], value: string | null): value is T => value !== null && (list as readonly string[]).includes(value);

export function parseFilter(text: string): Filter | undefined {
  const first = text.indexOf(',');
  const second = first < 0 ? -1 : text.indexOf(',', first + 1);
  if (second < 0) return undefined;
  const operator = text.slice(0, first);
  const field = text.slice(first + 1, second);
  const value = text.slice(second + 1);
  if (!isOneOf(FILTER_OPERATORS, operator) || !isOneOf(FILTER_FIELDS, field) || value === '' || value.length > MAX_FILTER_VALUE) return undefined;
  if (field === 'event' && operator !== 'is') return undefined;
  return { operator, field, value };
}

export function parseState(search: string): DashboardState {
  const params = new URLSearchParams(search);
  const state: DashboardState = { ...DEFAULT_STATE, filters: [] };
  const period = params.get('period');
  if (isOneOf(PERIODS, period)) state.period = period;
  if (state.period === 'custom') {
    const from = params.get('from');
    const to = params.get('to');
    if (from && to && DATE.test(from) && DATE.test(to) && from <= to) {
      state.from = from;
      state.to = to;
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

/** The query string (with `?`, or '' for nothing), keys in a fixed order; commas stay readable. */
export function serializeState(state: DashboardState, keep: Record<string, string> = {}): string {
  const parts: string[] = [];
  const put = (key: string, value: string) => parts.push(`${key}=${encodeValue(value)}`);
  for (const [key, value] of Object.entries(keep)) put(key, value);
  put('period', state.period);
  if (state.period === 'custom' && state.from && state.to) {
    put('from', state.from);
    put('to', state.to);
  }
  for (const filter of state.filters) put('f', `${filter.operator},${filter.field},${filter.value}`);
  if (state.compare !== DEFAULT_STATE.compare) put('compare', state.compare);
  if (state.interval) put('interval', state.interval);
  if (state.metric !== DEFAULT_STATE.metric) put('metric', state.metric);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** encodeURIComponent, then give back the characters that are safe in a query value and easier to read. */
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/g, ',').replace(/%2F/g, '/').replace(/%3A/g, ':');
}

export function sameFilter(a: Filter, b: Filter): boolean {
  return a.operator === b.operator && a.field === b.field && a.value === b.value;
}

/** Adds a filter, replacing an `is` filter on the same field (a row click narrows, never contradicts). */
export function withFilter(state: DashboardState, filter: Filter): DashboardState {
  const rest = state.filters.filter((f) => !(f.field === filter.field && (f.operator === 'is' || filter.operator === 'is' || sameFilter(f, filter))));
  return { ...state, filters: [...rest, filter].slice(0, MAX_FILTERS) };
}

export function withoutFilter(state: DashboardState, filter: Filter): DashboardState {
  return { ...state, filters: state.filters.filter((f) => !sameFilter(f, filter)) };
}

/** The API's filter objects (one value each). */
export function apiFilters(filters: readonly Filter[]): { field: string; operator: string; values: string[] }[] {
  return filters.map((f) => ({ field: f.field, operator: f.operator, values: [f.value] }));
}
