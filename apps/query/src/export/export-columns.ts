/**
 * What an export row is: one event in the `sightline` import format (DESIGN.md "Event
 * import format", libs/events-schema import-row.ts), its visit's attributes included,
 * so the file loads back through POST /sites/{id}/imports unchanged. Column names come
 * from the visit attribute catalogue only (never from a request).
 *
 * Privacy: no IP and no User-Agent exist in the store to export; `visitor_id` is the
 * stored daily-salted hash (a new value every day for the same person), written as
 * decimal text because it exceeds 2^53.
 */
import { SCROLL_DEPTH_NONE, SESSION_ATTRIBUTES, STATUS_CODE_NONE, type SessionAttributeColumn } from '@sightline/events-schema';

export const EXPORT_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const isExportFormat = (value: string): value is ExportFormat => (EXPORT_FORMATS as readonly string[]).includes(value);

const ATTRIBUTES: readonly SessionAttributeColumn[] = SESSION_ATTRIBUTES.map((a) => a.name);

/** The columns of a file, in order (the CSV header, the NDJSON key order, the Parquet schema). */
export const EXPORT_COLUMNS = [
  'timestamp',
  'name',
  'visitor_id',
  'hostname',
  'pathname',
  ...ATTRIBUTES,
  'props',
  'scroll_depth',
  'engagement_ms',
  'status_code',
] as const;

/** One events row as a page reads it (`day`, `visitor_key` and `ms` also make the page's cursor). */
export interface StoredEvent extends Record<string, unknown> {
  day: string;
  ms: number;
  name: string;
  visitor_key: string;
  hostname: string;
  pathname: string;
  prop_keys: string[];
  prop_values: string[];
  scroll_depth: number;
  engagement_ms: number;
  status_code: number;
}

/** The page statement's select list. */
export const STORED_EVENT_SELECT = [
  'toString(toDate(timestamp)) AS day',
  'toUnixTimestamp64Milli(timestamp) AS ms',
  'name',
  'toString(visitor_id) AS visitor_key',
  'hostname',
  'pathname',
  ...ATTRIBUTES,
  'prop_keys',
  'prop_values',
  'scroll_depth',
  'engagement_ms',
  'status_code',
].join(', ');

/** The Parquet statement's select list: the same columns, typed (props a map, "not recorded" as null). */
export const PARQUET_SELECT = [
  'timestamp',
  'name',
  'toString(visitor_id) AS visitor_id',
  'hostname',
  'pathname',
  ...ATTRIBUTES,
  'mapFromArrays(prop_keys, prop_values) AS props',
  `nullIf(scroll_depth, ${SCROLL_DEPTH_NONE}) AS scroll_depth`,
  'engagement_ms',
  `nullIf(status_code, ${STATUS_CODE_NONE}) AS status_code`,
].join(', ');

export type ExportValue = string | number | null | Record<string, string>;

/** A stored event → the import line's values, in EXPORT_COLUMNS order. */
export function exportValues(row: StoredEvent): ExportValue[] {
  const props: Record<string, string> = {};
  row.prop_keys.forEach((key, i) => (props[key] = row.prop_values[i] ?? ''));
  return [
    new Date(Number(row.ms)).toISOString(),
    row.name,
    row.visitor_key,
    row.hostname,
    row.pathname,
    ...ATTRIBUTES.map((a) => row[a] as string | number),
    props,
    Number(row.scroll_depth) === SCROLL_DEPTH_NONE ? null : Number(row.scroll_depth),
    Number(row.engagement_ms),
    Number(row.status_code) === STATUS_CODE_NONE ? null : Number(row.status_code),
  ];
}
