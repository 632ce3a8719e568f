import { z } from 'zod';
import { ApiError, type ErrorCode } from '@sightline/errors';

/**
 * POST /query's request: its one type and its one validator. The gateway parses the
 * body (after the site checks, so their codes come first) and the query service
 * decodes the same type from the wire with the same function. Each malformed part
 * answers the spec's code for it (metrics_required, too_many_dimensions,
 * invalid_date_range, invalid_filter, invalid_compare, else invalid_request), checked
 * in the order of the fields below. Names are checked against the query service's
 * catalogues afterwards (apps/query/src/query/validate.ts). `site_id` is not part of
 * it: the gateway resolves the site before the query is parsed.
 */
export const QUERY_LIMITS = {
  metrics: 20,
  filters: 20,
  values: 100,
  valueLength: 1000,
  nameLength: 400,
  offsetMax: 1_000_000,
  /** a breakdown's page size when none is asked, and the largest one (larger values are clamped) */
  limitDefault: 100,
  limitMax: 1000,
} as const;

const name = z.string().min(1).max(QUERY_LIMITS.nameLength);
const DateRangeSchema = z.union([z.string().max(40), z.tuple([z.string().max(40), z.string().max(40)])]);
const FilterSchema = z.strictObject({
  field: name,
  operator: name,
  values: z.array(z.string().max(QUERY_LIMITS.valueLength)).min(1).max(QUERY_LIMITS.values),
});

/** `7d`, `month`, `realtime`, `previous_period` or [start, end] (not yet resolved against a calendar). */
export type DateRange = string | [string, string];

export interface QueryFilter {
  field: string;
  operator: string;
  values: string[];
}

export interface QueryRequest {
  metrics: string[];
  dateRange: DateRange;
  dimensions: string[];
  filters: QueryFilter[];
  compare?: DateRange;
  limit?: number;
  offset?: number;
}

const KNOWN_KEYS = new Set(['metrics', 'date_range', 'dimensions', 'filters', 'compare', 'limit', 'offset']);

function field<T>(schema: z.ZodType<T>, value: unknown, code: ErrorCode, message: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(code, message);
  return parsed.data;
}

/** The body (without `site_id`) as a QueryRequest, or the ApiError of its first malformed part. */
export function parseQueryRequest(body: unknown): QueryRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('invalid_request', 'The body must be a JSON object.');
  const raw = body as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((key) => !KNOWN_KEYS.has(key));
  if (unknown.length) throw new ApiError('invalid_request', `Unknown field: ${unknown[0]!.slice(0, 40)}.`);

  if (raw.metrics === undefined || (Array.isArray(raw.metrics) && raw.metrics.length === 0)) throw new ApiError('metrics_required');
  const metrics = field(
    z.array(name).max(QUERY_LIMITS.metrics),
    raw.metrics,
    'invalid_request',
    `metrics must be a list of up to ${QUERY_LIMITS.metrics} metric names.`,
  );
  if (raw.date_range === undefined) throw new ApiError('invalid_date_range', 'date_range is required.');
  const dateRange = field(DateRangeSchema, raw.date_range, 'invalid_date_range', 'date_range must be Nd, month, realtime or [start, end].');
  const dimensions = raw.dimensions === undefined ? [] : field(z.array(name).max(50), raw.dimensions, 'invalid_request', 'dimensions must be a list of names.');
  if (dimensions.length > 1) throw new ApiError('too_many_dimensions');
  const filters =
    raw.filters === undefined
      ? []
      : field(
          z.array(FilterSchema).max(QUERY_LIMITS.filters),
          raw.filters,
          'invalid_filter',
          `filters: up to ${QUERY_LIMITS.filters} objects {field, operator, values}, 1 to ${QUERY_LIMITS.values} values of up to ${QUERY_LIMITS.valueLength} characters.`,
        );
  const compare =
    raw.compare === undefined ? undefined : field(DateRangeSchema, raw.compare, 'invalid_compare', 'compare must be previous_period or [start, end].');
  const limit = raw.limit === undefined ? undefined : field(z.number().int(), raw.limit, 'invalid_request', 'limit must be an integer.');
  const offset =
    raw.offset === undefined
      ? undefined
      : field(
          z.number().int().min(0).max(QUERY_LIMITS.offsetMax),
          raw.offset,
          'invalid_request',
          `offset must be an integer from 0 to ${QUERY_LIMITS.offsetMax}.`,
        );
  return {
    metrics,
    dateRange,
    dimensions,
    filters,
    ...(compare !== undefined ? { compare } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(offset !== undefined ? { offset } : {}),
  };
}
