import { z } from 'zod';
import { ApiError, type ErrorCode } from '@sightline/errors';

/**
 * Step 1: the request body as data, with the spec's error code for each malformed
 * part (metrics_required, too_many_dimensions, invalid_date_range, invalid_filter,
 * invalid_compare). Names are checked against the catalogues in validate.ts.
 * Limits: 20 metrics, 20 filters, 100 values per filter, 1000 characters per value.
 */
export const QUERY_LIMITS = { metrics: 20, filters: 20, values: 100, valueLength: 1000, nameLength: 400, offsetMax: 1_000_000 } as const;

const name = z.string().min(1).max(QUERY_LIMITS.nameLength);
const DateRange = z.union([z.string().max(40), z.tuple([z.string().max(40), z.string().max(40)])]);
const Filter = z.strictObject({
  field: name,
  operator: name,
  values: z.array(z.string().max(QUERY_LIMITS.valueLength)).min(1).max(QUERY_LIMITS.values),
});

export interface ParsedFilter {
  field: string;
  operator: string;
  values: string[];
}

export interface ParsedQuery {
  siteId?: number;
  metrics: string[];
  dateRange: string | [string, string];
  dimensions: string[];
  filters: ParsedFilter[];
  compare?: string | [string, string];
  limit?: number;
  offset?: number;
}

const KNOWN_KEYS = new Set(['site_id', 'metrics', 'date_range', 'dimensions', 'filters', 'compare', 'limit', 'offset']);

function field<T>(schema: z.ZodType<T>, value: unknown, code: ErrorCode, message: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(code, message);
  return parsed.data;
}

export function parseQueryRequest(body: unknown): ParsedQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('invalid_request', 'The body must be a JSON object.');
  const raw = body as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((key) => !KNOWN_KEYS.has(key));
  if (unknown.length) throw new ApiError('invalid_request', `Unknown field: ${unknown[0]!.slice(0, 40)}.`);

  const siteId = raw.site_id === undefined ? undefined : field(z.number().int().positive().max(Number.MAX_SAFE_INTEGER), raw.site_id, 'invalid_request', 'site_id must be a positive integer.');
  if (raw.metrics === undefined || (Array.isArray(raw.metrics) && raw.metrics.length === 0)) throw new ApiError('metrics_required');
  const metrics = field(z.array(name).max(QUERY_LIMITS.metrics), raw.metrics, 'invalid_request', `metrics must be a list of up to ${QUERY_LIMITS.metrics} metric names.`);
  if (raw.date_range === undefined) throw new ApiError('invalid_date_range', 'date_range is required.');
  const dateRange = field(DateRange, raw.date_range, 'invalid_date_range', 'date_range must be Nd, month, realtime or [start, end].');
  const dimensions = raw.dimensions === undefined ? [] : field(z.array(name).max(50), raw.dimensions, 'invalid_request', 'dimensions must be a list of names.');
  if (dimensions.length > 1) throw new ApiError('too_many_dimensions');
  const filters = raw.filters === undefined ? [] : field(z.array(Filter).max(QUERY_LIMITS.filters), raw.filters, 'invalid_filter',
    `filters: up to ${QUERY_LIMITS.filters} objects {field, operator, values}, 1 to ${QUERY_LIMITS.values} values of up to ${QUERY_LIMITS.valueLength} characters.`);
  const compare = raw.compare === undefined ? undefined : field(DateRange, raw.compare, 'invalid_compare', 'compare must be previous_period or [start, end].');
  const limit = raw.limit === undefined ? undefined : field(z.number().int(), raw.limit, 'invalid_request', 'limit must be an integer.');
  const offset = raw.offset === undefined ? undefined : field(z.number().int().min(0).max(QUERY_LIMITS.offsetMax), raw.offset, 'invalid_request', `offset must be an integer from 0 to ${QUERY_LIMITS.offsetMax}.`);
  return { ...(siteId !== undefined ? { siteId } : {}), metrics, dateRange, dimensions, filters, ...(compare !== undefined ? { compare } : {}), ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) };
}
