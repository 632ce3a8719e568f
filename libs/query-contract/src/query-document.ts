import { z } from 'zod';
import { QUERY_LIMITS as LIMITS } from './query-request.js';

/** The names the query service's catalogues accept (the gateway's query-catalogue.ts gives them). */
export interface QueryNames {
  /** metrics of aggregates and time series */
  allShapesMetrics: readonly string[];
  /** dimension → metrics, as a Markdown table */
  metricsTable: string;
  filterFields: readonly string[];
  operators: readonly string[];
  /** the longest `event:props:<key>` key */
  propKeyLength: number;
}

/**
 * POST /query's body as the OpenAPI document shows it, beside its validator
 * (query-request.ts) so the two change together. Deliberately permissive in types:
 * the routes run parseQueryRequest after the site checks, which answers the spec's
 * specific codes (metrics_required, invalid_filter, invalid_compare, …) where a strict
 * schema here could only say invalid_request, and before the site's codes. What the
 * validator enforces beyond this schema (unknown fields, the offset range, the filter
 * shape) is shown with `.meta` from its own limits, so the document says what the
 * server does. `site_id` is the route's: it names the site and is not part of the query.
 */
export function queryBodyDocument(names: QueryNames) {
  const range = z.union([z.string().max(40), z.array(z.string().max(40)).max(2)]);

  const FilterShape = {
    type: 'object',
    properties: {
      field: { enum: [...names.filterFields] },
      operator: { enum: [...names.operators] },
      values: { type: 'array', minItems: 1, maxItems: LIMITS.values, items: { type: 'string', maxLength: LIMITS.valueLength } },
    },
    required: ['field', 'operator', 'values'],
    additionalProperties: false,
  };

  return z
    .looseObject({
      site_id: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Required with an all-sites key (400 site_id_required); a single-site key may omit it; another site → 403 key_not_scoped.'),
      metrics: z
        .array(z.string().max(LIMITS.nameLength))
        .max(LIMITS.metrics)
        .optional()
        .describe(
          `At least one (400 metrics_required). Unknown name → unknown_metric. Aggregates and time series compute ${names.allShapesMetrics.join(', ')}; a breakdown computes exactly its dimension's metrics; anything else → metric_not_available:\n\n${names.metricsTable}`,
        ),
      date_range: range
        .optional()
        .describe(
          '`Nd` (N 1–90), `month`, `realtime`, or [start, end] (YYYY-MM-DD from 1900-01-01 to 2299-12-31, up to 366 days), in the site’s timezone; else 400 invalid_date_range.',
        ),
      dimensions: z
        .array(z.string().max(LIMITS.nameLength))
        .max(50)
        .optional()
        .describe(
          `Zero or one: a time dimension (time, time:minute|hour|day|week|month) or a breakdown (the table under metrics; \`event:props:<key>\` with a key of up to ${names.propKeyLength} characters needs an event filter, else event_filter_required). Another name → unknown_dimension; more than one → too_many_dimensions.`,
        ),
      filters: z
        .array(z.unknown().meta(FilterShape))
        .max(LIMITS.filters)
        .optional()
        .describe(
          `{field, operator, values}: values OR-ed, filters AND-ed; anything else → invalid_filter. Up to ${LIMITS.filters} filters of ${LIMITS.values} values (${LIMITS.valueLength} characters each). Fields: ${names.filterFields.join(', ')} (country, region and city take codes; \`event\` takes \`is\` and one custom event name).`,
        ),
      compare: z
        .unknown()
        .optional()
        .describe(
          '`previous_period` or [start, end] of the same length (compare_length_mismatch); else invalid_compare (also when the previous period would start before 1900-01-01).',
        ),
      limit: z
        .number()
        .int()
        .optional()
        .describe(`Breakdowns only (else limit_offset_misuse); default ${LIMITS.limitDefault}, clamped to 1..${LIMITS.limitMax}.`),
      offset: z
        .number()
        .int()
        .optional()
        .meta({ minimum: 0, maximum: LIMITS.offsetMax })
        .describe(`Breakdowns only (else limit_offset_misuse); default 0; 0 to ${LIMITS.offsetMax.toLocaleString('en')}, else invalid_request.`),
    })
    .meta({ id: 'QueryRequest', additionalProperties: false, description: 'An unknown field → 400 invalid_request ("Unknown field: …").' });
}
