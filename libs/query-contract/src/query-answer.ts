/**
 * POST /query's answer, as the query service builds it and the gateway serves it
 * (the gateway's response schema, apps/gateway/src/schemas/query-schemas.ts, is held to
 * this type by the route's type check and encodes it on the way out).
 */

/** metric name → value; null where a value is undefined (an average over nothing, a percent change from 0) */
export type MetricValues = Record<string, number | null>;

/** The previous window's values and each metric's change (percent for counts and durations, difference for rates). */
export interface Comparison {
  metrics: MetricValues;
  change: MetricValues;
}

// type aliases, not interfaces: the gateway's response schema (loose objects) takes them as they are
export type QueryRow = {
  dimensions?: Record<string, string>;
  /** visit:country, visit:region, visit:city: the readable name of the value */
  labels?: Record<string, string>;
  metrics: MetricValues;
  comparison?: Comparison;
};

export type QueryAnswer = {
  results: QueryRow[];
  /**
   * breakdowns: total, limit, offset, has_more; any shape: from_rollups when a window
   * starts before the raw events kept (EVENTS_RETENTION_DAYS) and was answered from the roll-ups
   */
  meta?: { total?: number; limit?: number; offset?: number; has_more?: boolean; from_rollups?: boolean };
  has_import: boolean;
  /** the query as answered: names deduplicated, windows resolved to dates (instants for realtime) */
  query: {
    site_id: number;
    metrics: string[];
    dimensions: string[];
    filters: { field: string; operator: string; values: string[] }[];
    date_range: [string, string];
    compare?: [string, string];
  };
};
