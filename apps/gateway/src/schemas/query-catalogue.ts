import { SESSION_ATTRIBUTES } from '@sightline/events-schema';

/**
 * The names POST /query accepts, as the OpenAPI document (and README.md, "Querying
 * statistics") show them to users. The query service's catalogue
 * (apps/query/src/catalogue) is the validator; the gateway may not import an app, so
 * what the attribute catalogue does not give is copied here, and
 * apps/launcher/src/openapi-limits.e2e.test.ts holds the served document and the
 * README to the service's catalogue. The numeric limits are libs/query-contract's.
 */
/** the longest `event:props:<key>` key (apps/query's PROP_KEY_MAX) */
export const PROP_KEY_MAX_CHARS = 300;

/** The metrics of aggregates and time series. */
export const ALL_SHAPES_METRICS = ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit', 'engagement_time'] as const;

/** The session attributes users query: `visit:<name>` dimensions and `<name>` filter fields (the catalogue, libs/events-schema). */
const VISIT_ATTRIBUTES = SESSION_ATTRIBUTES.filter((a) => a.queried).map((a) => a.name);

/** Breakdown dimensions and the metrics each computes (anything else: 400 metric_not_available). */
export const BREAKDOWN_METRICS: ReadonlyArray<readonly [dimensions: readonly string[], metrics: readonly string[]]> = [
  [VISIT_ATTRIBUTES.map((field) => `visit:${field}`), ['visitors', 'visit_duration', 'bounce_rate']],
  [['visit:entry_page'], ['visitors', 'visits', 'visit_duration']],
  [['visit:exit_page'], ['visitors', 'visits', 'exit_rate']],
  [
    ['event:page', 'event:folder'],
    ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'],
  ],
  [['event:hostname'], ['visitors', 'visits', 'pageviews', 'visit_duration', 'bounce_rate', 'views_per_visit']],
  [['event:status_code'], ['pageviews']],
  [['event:name'], ['visitors', 'events']],
  [['event:goal'], ['visitors', 'events', 'conversion_rate']],
  [['event:props:<key>'], ['visitors', 'events']],
];

export const FILTER_FIELD_NAMES = [...VISIT_ATTRIBUTES, 'entry_page', 'exit_page', 'page', 'hostname', 'code', 'event'] as const;
export const FILTER_OPERATOR_NAMES = ['is', 'is_not', 'contains', 'does_not_contain'] as const;

/** The table as Markdown, one row per group of dimensions with the same metrics. */
export function metricsTableMarkdown(): string {
  const rows = [
    '| dimension | metrics |',
    '|---|---|',
    `| none (aggregate), \`time\`, \`time:minute\`, \`time:hour\`, \`time:day\`, \`time:week\`, \`time:month\` | ${ALL_SHAPES_METRICS.map((m) => `\`${m}\``).join(', ')} |`,
    ...BREAKDOWN_METRICS.map(([dimensions, metrics]) => `| ${dimensions.map((d) => `\`${d}\``).join(', ')} | ${metrics.map((m) => `\`${m}\``).join(', ')} |`),
  ];
  return rows.join('\n');
}
