import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { parseQueryRequest, type DateRange, type QueryFilter } from './query-request.js';

/**
 * GET /sites/{id}/funnels/{funnel_id}/report: its request (the funnel's steps, as the
 * gateway read them from the sites service, plus the window, filters and compare of
 * POST /query) and its answer. The window, filters and compare are checked by POST
 * /query's own validator, so a report accepts exactly what a query does and answers
 * the same codes, in the same order.
 */
export const FUNNEL_LIMITS = {
  /** sites allows 2 to 8 steps per funnel; 1 step is still a well-defined report */
  stepsMin: 1,
  stepsMax: 8,
  nameLength: 400,
  patternLength: 2000,
  filtersTextLength: 16 * 1024,
} as const;

/** One step: a goal of the site (exactly one of event_name / page_path, `*` wildcards in page_path). */
export interface FunnelStep {
  goal_id: number;
  name: string;
  event_name?: string;
  page_path?: string;
}

export interface FunnelReportRequest {
  funnel: { funnel_id: number; name: string; steps: FunnelStep[] };
  dateRange: DateRange;
  filters: QueryFilter[];
  compare?: DateRange;
}

/** A step's figures; rates are percents with 2 decimals, null where the denominator is 0. */
export type FunnelStepFigures = {
  visitors: number;
  conversion_rate: number | null;
  step_conversion_rate: number | null;
  /** visitors of this step who did not reach the next one; null on the last step */
  dropoff: number | null;
  /** median seconds from this step to the next in the visits that reached it; null on the last step or when none did */
  median_seconds_to_next: number | null;
};

export type FunnelStepRow = FunnelStepFigures & {
  step: number;
  goal_id: number;
  name: string;
  /** with compare: the previous window's figures and each one's change (percent for counts and times, difference for rates) */
  comparison?: { metrics: FunnelStepFigures; change: Record<keyof FunnelStepFigures, number | null> };
};

export type FunnelReport = {
  funnel_id: number;
  name: string;
  steps: FunnelStepRow[];
  /** the report as answered: windows resolved to dates (instants for realtime) */
  query: {
    site_id: number;
    funnel_id: number;
    filters: QueryFilter[];
    date_range: [string, string];
    compare?: [string, string];
  };
};

/**
 * The query string of the report route → the window, filters and compare, or POST
 * /query's ApiError for them. `date_range` and `compare` take GET /props's forms
 * (`7d`, `month`, `realtime`, `previous_period`, `start,end`); `filters` is the JSON
 * text of POST /query's `filters` list.
 */
export function parseFunnelQuery(raw: {
  date_range?: string | undefined;
  filters?: string | undefined;
  compare?: string | undefined;
}): Pick<FunnelReportRequest, 'dateRange' | 'filters' | 'compare'> {
  let filters: unknown;
  if (raw.filters !== undefined) {
    if (raw.filters.length > FUNNEL_LIMITS.filtersTextLength)
      throw new ApiError('invalid_filter', `filters is at most ${FUNNEL_LIMITS.filtersTextLength} characters of JSON.`);
    try {
      filters = JSON.parse(raw.filters);
    } catch {
      throw new ApiError('invalid_filter', 'filters must be the JSON text of a list of {field, operator, values}.');
    }
  }
  const parsed = parseQueryRequest({
    metrics: ['visitors'],
    ...(raw.date_range !== undefined ? { date_range: rangeOf(raw.date_range) } : {}),
    ...(filters !== undefined ? { filters } : {}),
    ...(raw.compare !== undefined ? { compare: rangeOf(raw.compare) } : {}),
  });
  return { dateRange: parsed.dateRange, filters: parsed.filters, ...(parsed.compare !== undefined ? { compare: parsed.compare } : {}) };
}

/** `start,end` → [start, end]; anything else as it is (the validator words the refusal). */
function rangeOf(text: string): DateRange {
  const parts = text.split(',');
  return parts.length === 2 ? [parts[0]!, parts[1]!] : text;
}

const StepSchema = z
  .strictObject({
    goal_id: z.number().int().positive(),
    name: z.string().max(FUNNEL_LIMITS.nameLength),
    event_name: z.string().min(1).max(FUNNEL_LIMITS.nameLength).optional(),
    page_path: z.string().min(1).max(FUNNEL_LIMITS.patternLength).optional(),
  })
  .refine((step) => (step.event_name === undefined) !== (step.page_path === undefined), 'exactly one of event_name / page_path');

const FunnelSchema = z.strictObject({
  funnel_id: z.number().int().positive(),
  name: z.string().max(FUNNEL_LIMITS.nameLength),
  steps: z.array(StepSchema).min(FUNNEL_LIMITS.stepsMin).max(FUNNEL_LIMITS.stepsMax),
});

/** The FunnelReport RPC's request bytes: the funnel and POST /query's body fields it shares. */
export function encodeFunnelReportRequest(request: FunnelReportRequest): Buffer {
  return Buffer.from(
    JSON.stringify({
      funnel: request.funnel,
      date_range: request.dateRange,
      filters: request.filters,
      ...(request.compare !== undefined ? { compare: request.compare } : {}),
    }),
  );
}

export function decodeFunnelReportRequest(bytes: Uint8Array): FunnelReportRequest {
  if (bytes.byteLength > 256 * 1024) throw new ApiError('payload_too_large');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new ApiError('invalid_request', 'The funnel report request is not JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('invalid_request', 'The funnel report request must be an object.');
  const funnel = FunnelSchema.safeParse(body.funnel);
  if (!funnel.success)
    throw new ApiError('invalid_request', `The funnel must have ${FUNNEL_LIMITS.stepsMin} to ${FUNNEL_LIMITS.stepsMax} steps, each one goal.`);
  const extra = Object.keys(body).find((key) => !['funnel', 'date_range', 'filters', 'compare'].includes(key));
  if (extra !== undefined) throw new ApiError('invalid_request', `Unknown field: ${extra.slice(0, 40)}.`);
  const parsed = parseQueryRequest({ metrics: ['visitors'], date_range: body.date_range, filters: body.filters, compare: body.compare });
  return {
    funnel: funnel.data as FunnelReportRequest['funnel'],
    dateRange: parsed.dateRange,
    filters: parsed.filters,
    ...(parsed.compare !== undefined ? { compare: parsed.compare } : {}),
  };
}

export function encodeFunnelReport(report: FunnelReport): Buffer {
  return Buffer.from(JSON.stringify(report));
}

export function decodeFunnelReport(text: string): FunnelReport {
  return JSON.parse(text) as FunnelReport;
}
