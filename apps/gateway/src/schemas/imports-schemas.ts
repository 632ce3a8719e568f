import { z } from 'zod';
import { IMPORT_FORMATS, IMPORT_MAX_ERRORS, IMPORT_STATUSES } from '@sightline/events-schema';
import type { sitesV1 } from '@sightline/proto';

export const ImportFormatQuery = z.object({
  format: z
    .enum(IMPORT_FORMATS)
    .default('sightline')
    .describe(
      '`sightline` (the default: one event object per line, fields as in README.md, "Importing history") or `ga4-bigquery` (newline-delimited JSON exported from a GA4 events_* table).',
    ),
});

const LineError = z.object({ line: z.number().int().describe('1-based line number in the upload.'), reason: z.string() });

export const ImportObject = z
  .object({
    import_id: z.number().int(),
    format: z.enum(IMPORT_FORMATS),
    status: z
      .enum(IMPORT_STATUSES)
      .describe('queued → running → completed, or failed (every line bad, upload interrupted, body over IMPORT_MAX_BYTES; `failure` says which).'),
    rows_accepted: z.number().int(),
    rows_rejected: z.number().int(),
    errors: z.array(LineError).describe(`The first ${IMPORT_MAX_ERRORS} rejected lines, in line order.`),
    range: z
      .object({ from: z.string().nullable(), to: z.string().nullable() })
      .describe('Time covered by the accepted rows (RFC 3339); null before any row is accepted.'),
    failure: z.string().nullable().describe('Why a failed import failed.'),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'Import' });

export const ImportCreated = z
  .object({
    import_id: z.number().int(),
    status: z.enum(IMPORT_STATUSES),
    format: z.enum(IMPORT_FORMATS),
    rows_accepted: z.number().int().describe('Valid lines staged; they are sessionized and written next (poll the import).'),
    rows_rejected: z.number().int(),
    errors: z.array(LineError),
  })
  .meta({ id: 'ImportCreated' });

const orNull = (value: string): string | null => (value === '' ? null : value);

export function toImportObject(job: sitesV1.ImportJob): z.infer<typeof ImportObject> {
  return {
    import_id: job.importId,
    format: job.format as z.infer<typeof ImportObject>['format'],
    status: job.status as z.infer<typeof ImportObject>['status'],
    rows_accepted: job.accepted,
    rows_rejected: job.rejected,
    errors: job.errors.map((e) => ({ line: e.line, reason: e.reason })),
    range: { from: orNull(job.rangeStart), to: orNull(job.rangeEnd) },
    failure: orNull(job.failure),
    created_at: job.createdAt,
    started_at: orNull(job.startedAt),
    finished_at: orNull(job.finishedAt),
  };
}
