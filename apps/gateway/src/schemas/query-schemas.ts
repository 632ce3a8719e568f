import { z } from 'zod';
import { queryBodyDocument } from '@sightline/query-contract';
import { ALL_SHAPES_METRICS, FILTER_FIELD_NAMES, FILTER_OPERATOR_NAMES, PROP_KEY_MAX_CHARS, metricsTableMarkdown } from './query-catalogue.js';

/** POST /query and GET /props as the OpenAPI document shows them; the query body is libs/query-contract's, with the catalogue's names. */
export const QueryBody = queryBodyDocument({
  allShapesMetrics: ALL_SHAPES_METRICS,
  metricsTable: metricsTableMarkdown(),
  filterFields: FILTER_FIELD_NAMES,
  operators: FILTER_OPERATOR_NAMES,
  propKeyLength: PROP_KEY_MAX_CHARS,
});

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
    meta: z
      .object({
        total: z.number().int().optional().describe('Breakdowns: distinct values before paging.'),
        limit: z.number().int().optional(),
        offset: z.number().int().optional(),
        has_more: z.boolean().optional(),
        from_rollups: z
          .boolean()
          .optional()
          .describe(
            'true when a window starts before the raw events this server keeps (EVENTS_RETENTION_DAYS) and was answered from the hourly roll-ups (aggregates, time series, visit:channel/source/country/browser/os/device breakdowns without filters); other queries there answer 400 outside_retention.',
          ),
      })
      .optional()
      .describe('Breakdowns: total, limit, offset, has_more; any shape: from_rollups.'),
    has_import: z.boolean(),
    query: z.looseObject({ site_id: z.number().int(), metrics: z.array(z.string()), dimensions: z.array(z.string()), date_range: z.array(z.string()) }),
  })
  .meta({ id: 'QueryAnswer' });

export const PropsQuerystring = z.object({
  // a repeated parameter arrives as a list, which coerces to NaN: say what is wrong instead
  site_id: z.coerce
    .number({ error: 'site_id must be a positive integer, given once.' })
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('As in POST /query.'),
  date_range: z.string().max(40).describe('`Nd`, `month`, `realtime`, or `start,end` (two YYYY-MM-DD dates from 1900-01-01 to 2299-12-31).'),
});

export const PropsAnswer = z
  .object({
    props: z.array(z.object({ key: z.string(), events: z.number().int() })).describe('Most used first, then by key; at most 1000.'),
    date_range: z.array(z.string()),
  })
  .meta({ id: 'PropsAnswer' });
