import { z } from 'zod';
import { SESSION_ATTRIBUTES, type SessionAttributeColumn, type SessionAttributes } from './attributes.js';

/**
 * Imports: history brought from another analytics tool, one event per NDJSON line.
 * `sightline` is DESIGN.md's "Event import format" (already enriched, explicit time
 * and visitor); `ga4-bigquery` is the JSON BigQuery exports from a GA4 events_* table.
 * Ingest parses every line with these schemas; the gateway documents them.
 */
export const IMPORT_FORMATS = ['sightline', 'ga4-bigquery'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** A line longer than this is rejected unread (a real event line is well under 4 KiB). */
export const IMPORT_MAX_LINE_BYTES = 65_536;
/** How many line errors a job keeps (the first ones, in line order); the rest are only counted. */
export const IMPORT_MAX_ERRORS = 20;
/** Imported events must lie in this window: older is not web analytics, later is a clock error. */
export const IMPORT_EARLIEST = Date.UTC(2000, 0, 1);
export const IMPORT_FUTURE_SLACK_MS = 24 * 3_600_000;

/** A date-time with a clock but no `Z` or `±hh:mm` (`2024-03-01T12:00:00`, `2024-03-01 12:00`). */
const WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;

/**
 * An import timestamp as epoch ms (NaN when it is not one). A date-time without a
 * zone is read as UTC: JavaScript would read it in the server's own time zone, so the
 * same file would land at different instants on differently configured servers.
 */
export function importTimestampMs(value: string): number {
  if (!/\d{4}-\d{2}-\d{2}/.test(value)) return Number.NaN;
  const trimmed = value.trim();
  return Date.parse(WITHOUT_ZONE.test(trimmed) ? `${trimmed.replace(' ', 'T')}Z` : trimmed);
}

const text = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((v) => v ?? '');
const propValue = z.union([z.string().max(256), z.number().finite(), z.boolean()]);

/** Each session attribute's column of the line, as the catalogue declares it (attributes.ts). */
const IMPORT_ATTRIBUTE_FIELDS = Object.fromEntries(SESSION_ATTRIBUTES.map((a) => [a.name, a.importSchema])) as {
  [K in SessionAttributeColumn]: z.ZodType<SessionAttributes[K], unknown>;
};

/**
 * One line of the `sightline` format. Only timestamp, name, visitor_id and pathname
 * are required; everything else defaults as SEMANTICS says (empty source → Direct /
 * None, no channel → classified from source and utm_*). null means "not recorded".
 * Unknown keys are ignored, so exports with extra columns load.
 */
export const ImportRow = z.object({
  timestamp: z
    .string()
    .min(1)
    .max(40)
    .refine((v) => !Number.isNaN(importTimestampMs(v)), 'timestamp must be an ISO 8601 date-time such as 2024-03-01T12:00:00Z (no zone = UTC)'),
  name: z.string().trim().min(1).max(120),
  visitor_id: z.union([z.string().min(1).max(128), z.number().int().nonnegative()]).transform(String),
  pathname: z.string().min(1).max(2048).startsWith('/', 'pathname must start with /'),
  hostname: text(253),
  ...IMPORT_ATTRIBUTE_FIELDS,
  props: z
    .record(z.string().min(1).max(64), propValue)
    .refine((props) => Object.keys(props).length <= 30, 'at most 30 props')
    .nullish()
    .transform((v) => v ?? {}),
  scroll_depth: z
    .number()
    .int()
    .min(0)
    .max(100)
    .nullish()
    .transform((v) => v ?? null),
  engagement_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .nullish()
    .transform((v) => v ?? null),
  status_code: z
    .number()
    .int()
    .min(100)
    .max(599)
    .nullish()
    .transform((v) => v ?? null),
});

export type ImportRow = z.output<typeof ImportRow>;

export interface ImportLineError {
  line: number;
  reason: string;
}

/** The `import.progress` message (ingest → sites). */
export interface ImportProgress {
  import_id: number;
  site_id: number;
  /** grows with every report of one import (a millisecond clock plus a counter), so stale reports are ignored */
  seq: number;
  /** queued: staged, waiting for the writer; then running, completed or failed */
  status: ImportStatus;
  accepted: number;
  rejected: number;
  errors: ImportLineError[];
  /** ISO 8601 of the first and last accepted event; '' when none */
  range_start: string;
  range_end: string;
  /** why the import failed ('' otherwise) */
  failure: string;
  at: string;
}
