import type { Filter, FilterField } from './state/url-state.js';

/**
 * The panels and their tabs: which API dimension each tab breaks down by, the
 * metrics it asks for (exactly the spec's table), the filter field a row click sets,
 * and drill-downs (a browser filter turns Browsers into browser versions).
 */
export type PanelId = 'sources' | 'pages' | 'locations' | 'devices' | 'goals';

export interface TabSpec {
  id: string;
  label: string;
  /** the dimension to query given the current filters */
  dimension: (filters: readonly Filter[]) => string;
  /** column header of the dimension value */
  column: (filters: readonly Filter[]) => string;
  metrics: string[];
  /** the filter field a row's value goes into (none: rows are not clickable) */
  filterField: (filters: readonly Filter[]) => FilterField | undefined;
  /** rows are country/region/city codes with labels */
  geo?: boolean;
  /** referrer values may link out (http(s) only) */
  links?: boolean;
  /** tab that draws the map over the country rows */
  map?: boolean;
  /** custom property breakdown (needs an event filter) */
  props?: boolean;
}

export interface PanelSpec {
  id: PanelId;
  title: string;
  tabs: TabSpec[];
}

const ATTRIBUTE_METRICS = ['visitors', 'bounce_rate', 'visit_duration'];
const fixed = (
  dimension: string,
  label: string,
  field: FilterField | undefined,
  metrics: string[],
  extra: Partial<TabSpec> = {},
): Omit<TabSpec, 'id' | 'label'> => ({
  dimension: () => dimension,
  column: () => label,
  filterField: () => field,
  metrics,
  ...extra,
});
/** a single-valued `is` filter on the field (several browsers at once do not drill down) */
const hasIs = (filters: readonly Filter[], field: FilterField) => filters.some((f) => f.field === field && f.operator === 'is' && f.values.length === 1);
/** Browsers → versions of the filtered browser (OS likewise), as Plausible drills down. */
const drill = (field: 'browser' | 'os', label: string, versionLabel: string): Omit<TabSpec, 'id' | 'label'> => ({
  dimension: (filters) => (hasIs(filters, field) ? `visit:${field}_version` : `visit:${field}`),
  column: (filters) => (hasIs(filters, field) ? versionLabel : label),
  filterField: (filters) => (hasIs(filters, field) ? `${field}_version` : field),
  metrics: ATTRIBUTE_METRICS,
});

export const PANELS: PanelSpec[] = [
  {
    id: 'sources',
    title: 'Sources',
    tabs: [
      { id: 'channels', label: 'Channels', ...fixed('visit:channel', 'Channel', 'channel', ATTRIBUTE_METRICS) },
      { id: 'sources', label: 'Sources', ...fixed('visit:source', 'Source', 'source', ATTRIBUTE_METRICS) },
      { id: 'referrers', label: 'Referrers', ...fixed('visit:referrer', 'Referrer', 'referrer', ATTRIBUTE_METRICS, { links: true }) },
      { id: 'utm_medium', label: 'UTM medium', ...fixed('visit:utm_medium', 'UTM medium', 'utm_medium', ATTRIBUTE_METRICS) },
      { id: 'utm_source', label: 'UTM source', ...fixed('visit:utm_source', 'UTM source', 'utm_source', ATTRIBUTE_METRICS) },
      { id: 'utm_campaign', label: 'UTM campaign', ...fixed('visit:utm_campaign', 'UTM campaign', 'utm_campaign', ATTRIBUTE_METRICS) },
    ],
  },
  {
    id: 'pages',
    title: 'Pages',
    tabs: [
      { id: 'top', label: 'Top pages', ...fixed('event:page', 'Page', 'page', ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth']) },
      { id: 'entry', label: 'Entry pages', ...fixed('visit:entry_page', 'Entry page', 'entry_page', ['visitors', 'visits', 'visit_duration']) },
      { id: 'exit', label: 'Exit pages', ...fixed('visit:exit_page', 'Exit page', 'exit_page', ['visitors', 'visits', 'exit_rate']) },
    ],
  },
  {
    id: 'locations',
    title: 'Locations',
    tabs: [
      { id: 'map', label: 'Map', ...fixed('visit:country', 'Country', 'country', ATTRIBUTE_METRICS, { geo: true, map: true }) },
      { id: 'countries', label: 'Countries', ...fixed('visit:country', 'Country', 'country', ATTRIBUTE_METRICS, { geo: true }) },
      { id: 'regions', label: 'Regions', ...fixed('visit:region', 'Region', 'region', ATTRIBUTE_METRICS, { geo: true }) },
      { id: 'cities', label: 'Cities', ...fixed('visit:city', 'City', 'city', ATTRIBUTE_METRICS, { geo: true }) },
    ],
  },
  {
    id: 'devices',
    title: 'Devices',
    tabs: [
      { id: 'browsers', label: 'Browsers', ...drill('browser', 'Browser', 'Browser version') },
      { id: 'os', label: 'Operating systems', ...drill('os', 'Operating system', 'OS version') },
      { id: 'devices', label: 'Devices', ...fixed('visit:device', 'Device', 'device', ATTRIBUTE_METRICS) },
      { id: 'screens', label: 'Screen sizes', ...fixed('visit:screen', 'Screen size', 'screen', ATTRIBUTE_METRICS) },
    ],
  },
  {
    id: 'goals',
    title: 'Goals',
    tabs: [
      { id: 'goals', label: 'Goals', ...fixed('event:goal', 'Goal', undefined, ['visitors', 'events', 'conversion_rate']) },
      { id: 'events', label: 'Custom events', ...fixed('event:name', 'Event', 'event', ['visitors', 'events']) },
      {
        id: 'props',
        label: 'Properties',
        dimension: () => 'event:props:',
        column: () => 'Value',
        filterField: () => undefined,
        metrics: ['visitors', 'events'],
        props: true,
      },
    ],
  },
];

/** Readable names of filter fields (chips, the filter dialog). */
export const FIELD_LABELS: Record<FilterField, string> = {
  page: 'Page',
  entry_page: 'Entry page',
  exit_page: 'Exit page',
  hostname: 'Hostname',
  source: 'Source',
  channel: 'Channel',
  referrer: 'Referrer',
  utm_source: 'UTM source',
  utm_medium: 'UTM medium',
  utm_campaign: 'UTM campaign',
  utm_content: 'UTM content',
  utm_term: 'UTM term',
  country: 'Country',
  region: 'Region',
  city: 'City',
  browser: 'Browser',
  browser_version: 'Browser version',
  os: 'Operating system',
  os_version: 'OS version',
  device: 'Device',
  screen: 'Screen size',
  code: 'Status code',
  event: 'Custom event',
};

/** The breakdown that suggests values for a filter field (the filter dialog). */
export const SUGGESTION_DIMENSION: Record<FilterField, string> = {
  page: 'event:page',
  entry_page: 'visit:entry_page',
  exit_page: 'visit:exit_page',
  hostname: 'event:hostname',
  source: 'visit:source',
  channel: 'visit:channel',
  referrer: 'visit:referrer',
  utm_source: 'visit:utm_source',
  utm_medium: 'visit:utm_medium',
  utm_campaign: 'visit:utm_campaign',
  utm_content: 'visit:utm_content',
  utm_term: 'visit:utm_term',
  country: 'visit:country',
  region: 'visit:region',
  city: 'visit:city',
  browser: 'visit:browser',
  browser_version: 'visit:browser_version',
  os: 'visit:os',
  os_version: 'visit:os_version',
  device: 'visit:device',
  screen: 'visit:screen',
  code: 'event:status_code',
  event: 'event:name',
};

/** The metric a suggestion breakdown ranks by (event:status_code computes only pageviews). */
export const suggestionMetric = (field: FilterField) => (field === 'code' ? 'pageviews' : 'visitors');

export const OPERATOR_LABELS = { is: 'is', is_not: 'is not', contains: 'contains', does_not_contain: 'does not contain' } as const;
