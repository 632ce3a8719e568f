import { z } from 'zod';
import { QUERY_LIMITS } from '@sightline/query-contract';
import { ALL_SHAPES_METRICS, FILTER_FIELD_NAMES, FILTER_OPERATOR_NAMES, PROP_KEY_MAX_CHARS, metricsTableMarkdown } from './query-catalogue.js';

const LIMITS = { ...QUERY_LIMITS, propKeyLength: PROP_KEY_MAX_CHARS };

/**
 * POST /query and GET /props as the OpenAPI document shows them. The body schema is
 * deliberately permissive in types: the routes parse the body with the query's one
 * validator (libs/query-contract) after the site checks, which answers the spec's
 * specific codes (metrics_required, invalid_filter, invalid_compare, …) where a strict
 * schema here could only say invalid_request, and before the site's codes. What that
 * validator enforces beyond this schema (unknown fields, the offset range, the filter
 * shape) is shown with `.meta` from its own limits, so the document says what the
 * server does; the names come from query-catalogue.ts.
 */
const range = z.union([z.string().max(40), z.array(z.string().max(40)).max(2)]);

const FilterShape = {
  type: 'object',
  properties: {
    field: { enum: [...FILTER_FIELD_NAMES] },
    operator: { enum: [...FILTER_OPERATOR_NAMES] },
    values: { type: 'array', minItems: 1, maxItems: LIMITS.values, items: { type: 'string', maxLength: LIMITS.valueLength } },
  },
  required: ['field', 'operator', 'values'],
  additionalProperties: false,
};

export const QueryBody = z
  .looseObject({
    site_id: z.number().int().positive().optional().describe('Required with an all-sites key (400 site_id_required); a single-site key may omit it; another site → 403 key_not_scoped.'),
    metrics: z
      .array(z.string().max(LIMITS.nameLength))
      .max(LIMITS.metrics)
      .optional()
      .describe(
        `At least one (400 metrics_required). Unknown name → unknown_metric. Aggregates and time series compute ${ALL_SHAPES_METRICS.join(', ')}; a breakdown computes exactly its dimension's metrics; anything else → metric_not_available:\n\n${metricsTableMarkdown()}`,
      ),
    date_range: range.optional().describe('`Nd` (N 1–90), `month`, `realtime`, or [start, end] (YYYY-MM-DD from 1900-01-01 to 2299-12-31, up to 366 days), in the site’s timezone; else 400 invalid_date_range.'),
    dimensions: z.array(z.string().max(LIMITS.nameLength)).max(50).optional().describe(`Zero or one: a time dimension (time, time:minute|hour|day|week|month) or a breakdown (the table under metrics; \`event:props:<key>\` with a key of up to ${LIMITS.propKeyLength} characters needs an event filter, else event_filter_required). Another name → unknown_dimension; more than one → too_many_dimensions.`),
    filters: z
      .array(z.unknown().meta(FilterShape))
      .max(LIMITS.filters)
      .optional()
      .describe(`{field, operator, values}: values OR-ed, filters AND-ed; anything else → invalid_filter. Up to ${LIMITS.filters} filters of ${LIMITS.values} values (${LIMITS.valueLength} characters each). Fields: ${FILTER_FIELD_NAMES.join(', ')} (country, region and city take codes; \`event\` takes \`is\` and one custom event name).`),
    compare: z.unknown().optional().describe('`previous_period` or [start, end] of the same length (compare_length_mismatch); else invalid_compare (also when the previous period would start before 1900-01-01).'),
    limit: z.number().int().optional().describe(`Breakdowns only (else limit_offset_misuse); default ${LIMITS.limitDefault}, clamped to 1..${LIMITS.limitMax}.`),
    offset: z.number().int().optional().meta({ minimum: 0, maximum: LIMITS.offsetMax }).describe(`Breakdowns only (else limit_offset_misuse); default 0; 0 to ${LIMITS.offsetMax.toLocaleString('en')}, else invalid_request.`),
  })
  .meta({ id: 'QueryRequest', additionalProperties: false, description: 'An unknown field → 400 invalid_request ("Unknown field: …").' });

const Values = z.record(z.string(), z.number().nullable());
const Row = z.looseObject({
  dimensions: z.record(z.string(), z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional().describe('visit:country, visit:region, visit:city only: the readable name.'),
  metrics: Values,
  comparison: z.object({ metrics: Values, change: Values }).optional().describe('With compare; absent for event:status_code and event:goal.'),
});

export const QueryAnswer = z
  .object({
    results: z.array(Row),
    meta: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), has_more: z.boolean() }).optional().describe('Breakdowns only.'),
    has_import: z.boolean(),
    query: z.looseObject({ site_id: z.number().int(), metrics: z.array(z.string()), dimensions: z.array(z.string()), date_range: z.array(z.string()) }),
  })
  .meta({ id: 'QueryAnswer' });

export const PropsQuerystring = z.object({
  // a repeated parameter arrives as a list, which coerces to NaN: say what is wrong instead
  site_id: z.coerce.number({ error: 'site_id must be a positive integer, given once.' }).int().positive().max(Number.MAX_SAFE_INTEGER).optional().describe('As in POST /query.'),
  date_range: z.string().max(40).describe('`Nd`, `month`, `realtime`, or `start,end` (two YYYY-MM-DD dates from 1900-01-01 to 2299-12-31).'),
});

export const PropsAnswer = z
  .object({ props: z.array(z.object({ key: z.string(), events: z.number().int() })).describe('Most used first, then by key; at most 1000.'), date_range: z.array(z.string()) })
  .meta({ id: 'PropsAnswer' });
