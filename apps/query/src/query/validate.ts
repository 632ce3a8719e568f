import { ApiError } from '@sightline/errors';
import { QUERY_LIMITS, type QueryFilter, type QueryRequest } from '@sightline/query-contract';
import {
  DIMENSIONS,
  INTERVAL_OF,
  PROP_KEY_MAX,
  PROPS_PREFIX,
  isTimeDimension,
  propsDimension,
  type DimensionSpec,
  type Interval,
} from '../catalogue/dimensions.js';
import { FILTER_FIELDS, FILTER_OPERATORS, type FilterFieldSpec, type FilterOperator } from '../catalogue/filter-fields.js';
import { ALL_SHAPE_METRICS, isMetricName, type MetricName } from '../catalogue/metrics.js';

/**
 * Step 2: names checked against the catalogues. Produces the query's shape, the
 * dimension's catalogue entry, typed filters, and the clamped page. Dates are
 * resolved separately (resolve-dates.ts).
 */
export type Shape = 'aggregate' | 'timeseries' | 'breakdown';

export interface ValidFilter {
  field: string;
  spec: FilterFieldSpec;
  operator: FilterOperator;
  values: string[];
}

export interface ValidQuery {
  metrics: MetricName[];
  shape: Shape;
  /** the dimension's name as requested (echoed and used as the row key) */
  dimension?: string;
  interval?: Interval;
  breakdown?: DimensionSpec;
  propKey?: string;
  filters: ValidFilter[];
  limit: number;
  offset: number;
}

const FIXED_EVENTS = new Set(['pageview', 'engagement']);

function validateFilter(filter: QueryFilter): ValidFilter {
  const spec = FILTER_FIELDS[filter.field];
  if (!spec || !Object.hasOwn(FILTER_FIELDS, filter.field))
    throw new ApiError('invalid_filter', `No filter field ${JSON.stringify(filter.field.slice(0, 60))}.`);
  if (!(FILTER_OPERATORS as readonly string[]).includes(filter.operator)) throw new ApiError('invalid_filter', `Operators: ${FILTER_OPERATORS.join(', ')}.`);
  const operator = filter.operator as FilterOperator;
  if (filter.field === 'event') {
    if (operator !== 'is' || filter.values.length !== 1) throw new ApiError('invalid_filter', 'The event filter takes operator is and exactly one value.');
    if (FIXED_EVENTS.has(filter.values[0]!) || filter.values[0] === '')
      throw new ApiError('invalid_filter', 'The event filter names a custom event, not pageview or engagement.');
  }
  if (filter.field === 'code' && (operator === 'is' || operator === 'is_not') && !filter.values.every((v) => /^\d{3}$/.test(v))) {
    throw new ApiError('invalid_filter', 'code values are HTTP status codes (three digits).');
  }
  return { field: filter.field, spec, operator, values: filter.values };
}

export function validateQuery(parsed: QueryRequest): ValidQuery {
  const dimension = parsed.dimensions[0];
  let shape: Shape = 'aggregate';
  let interval: Interval | undefined;
  let breakdown: DimensionSpec | undefined;
  let propKey: string | undefined;
  if (dimension !== undefined) {
    if (isTimeDimension(dimension)) {
      shape = 'timeseries';
      interval = INTERVAL_OF[dimension];
    } else if (dimension.startsWith(PROPS_PREFIX) && dimension.length > PROPS_PREFIX.length && dimension.length <= PROPS_PREFIX.length + PROP_KEY_MAX) {
      shape = 'breakdown';
      breakdown = propsDimension;
      propKey = dimension.slice(PROPS_PREFIX.length);
    } else if (Object.hasOwn(DIMENSIONS, dimension)) {
      shape = 'breakdown';
      breakdown = DIMENSIONS[dimension];
    } else {
      throw new ApiError('unknown_dimension', `No dimension ${JSON.stringify(dimension.slice(0, 60))}.`);
    }
  }
  const metrics: MetricName[] = [];
  for (const name of parsed.metrics) {
    if (!isMetricName(name)) throw new ApiError('unknown_metric', `No metric ${JSON.stringify(name.slice(0, 60))}.`);
    const available = breakdown ? Object.hasOwn(breakdown.metrics, name) : ALL_SHAPE_METRICS.includes(name);
    if (!available)
      throw new ApiError('metric_not_available', `${name} is not available ${dimension ? `with ${dimension}` : 'without a breakdown dimension'}.`);
    if (!metrics.includes(name)) metrics.push(name);
  }
  const filters = parsed.filters.map(validateFilter);
  if (propKey !== undefined && !filters.some((f) => f.field === 'event')) throw new ApiError('event_filter_required');
  if (shape !== 'breakdown' && (parsed.limit !== undefined || parsed.offset !== undefined)) throw new ApiError('limit_offset_misuse');
  const limit = Math.min(QUERY_LIMITS.limitMax, Math.max(1, parsed.limit ?? QUERY_LIMITS.limitDefault));
  return {
    metrics,
    shape,
    filters,
    limit,
    offset: parsed.offset ?? 0,
    ...(dimension !== undefined ? { dimension } : {}),
    ...(interval ? { interval } : {}),
    ...(breakdown ? { breakdown } : {}),
    ...(propKey !== undefined ? { propKey } : {}),
  };
}
