import { z } from 'zod';

/** GET /sites/{id}/funnels/{funnel_id}/report as the OpenAPI document shows it (libs/query-contract's FunnelReport). */
export const FUNNEL_REPORT_DESCRIPTION = [
  'Visitors who went through the funnel’s steps, in order, within one visit. A step is one of the site’s goals: a page (a pageview whose path matches the goal’s pattern, `*` matching any run of characters) or a custom event (its name).',
  'Step N counts the distinct visitors with a visit in which steps 1 to N happened in that order; other events may come between them. A step happens strictly after the previous one (to the millisecond): one event never completes two steps, and a step before its predecessor, or repeated before it, does not count — the chain goes from the first time step 1 happened to the first time each next step happened after it. A step reached only in another visit does not count (a visitor’s visits are counted apart, and the visitor once per step). Only events inside the window count; imported events count like live ones.',
  '`conversion_rate` is step N’s visitors as a percent of step 1’s, `step_conversion_rate` of step N−1’s (step 1’s is 100), both with 2 decimals and null when the denominator is 0; `dropoff` is step N’s visitors minus step N+1’s; `median_seconds_to_next` is the median (the mean of the two middle values for an even count), in whole seconds, of the time from step N to step N+1 over the visits that reached step N+1. On the last step `dropoff` and `median_seconds_to_next` are null, and `median_seconds_to_next` is null when no visit reached the next step.',
  '`date_range`, `filters` and `compare` are POST /query’s, with the same codes: a visit field filter keeps the visits that match it; an event field filter (`page`, `hostname`, `code`, `event`) keeps the visits with a matching event in the window. With `compare` each step carries `comparison`: the previous window’s figures and each change (percent, an integer, for visitors, drop-off and time; difference for the rates; null where undefined).',
  'Checks in order: reach (404 unknown_site, 403 key_not_scoped), tracking (403 tracking_inactive), plan (403 plan_expired), the funnel (404 unknown_funnel), then the query string (400 codes). 422 `query_too_large` and 503 `unavailable` as for POST /query.',
].join('\n\n');

export const FunnelReportQuerystring = z.object({
  date_range: z
    .string()
    .max(40)
    .optional()
    .describe('`Nd`, `month`, `realtime`, or `start,end` (YYYY-MM-DD), as GET /props. Required: without it the answer is 400 invalid_date_range.'),
  filters: z
    .string()
    .max(16 * 1024)
    .optional()
    .describe('The JSON text of POST /query’s `filters` list, e.g. `[{"field":"country","operator":"is","values":["DE"]}]`.'),
  compare: z.string().max(40).optional().describe('`previous_period` or `start,end`, as POST /query’s `compare`.'),
});

const Figures = {
  visitors: z.number().int(),
  conversion_rate: z.number().nullable(),
  step_conversion_rate: z.number().nullable(),
  dropoff: z.number().int().nullable(),
  median_seconds_to_next: z.number().int().nullable(),
};

const FunnelStepRow = z.object({
  step: z.number().int().describe('1-based position in the funnel.'),
  goal_id: z.number().int(),
  name: z.string().describe('The goal’s display name.'),
  ...Figures,
  comparison: z
    .object({
      metrics: z.object(Figures),
      change: z.object({
        visitors: z.number().nullable(),
        conversion_rate: z.number().nullable(),
        step_conversion_rate: z.number().nullable(),
        dropoff: z.number().nullable(),
        median_seconds_to_next: z.number().nullable(),
      }),
    })
    .optional()
    .describe('With compare only.'),
});

export const FunnelReportAnswer = z
  .object({
    funnel_id: z.number().int(),
    name: z.string(),
    steps: z.array(FunnelStepRow),
    query: z.object({
      site_id: z.number().int(),
      funnel_id: z.number().int(),
      filters: z.array(z.object({ field: z.string(), operator: z.string(), values: z.array(z.string()) })),
      date_range: z.array(z.string()).describe('The window as answered: dates, or ISO instants for realtime.'),
      compare: z.array(z.string()).optional(),
    }),
  })
  .meta({ id: 'FunnelReport' });
