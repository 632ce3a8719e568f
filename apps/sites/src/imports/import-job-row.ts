import type { sitesV1 } from '@sightline/proto';
import { rfc3339 } from '@sightline/runtime';

export interface ImportJobRow {
  id: number;
  site_id: number;
  format: string;
  status: string;
  accepted: string | number;
  rejected: string | number;
  errors: Array<{ line: number; reason: string }>;
  failure: string;
  range_start: Date | null;
  range_end: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export const IMPORT_JOB_COLUMNS =
  'id, site_id, format, status, accepted, rejected, errors, failure, range_start, range_end, created_at, started_at, finished_at';

const optionalTime = (at: Date | null): string => (at ? rfc3339(at) : '');

export const toImportJob = (row: ImportJobRow): sitesV1.ImportJob => ({
  importId: Number(row.id),
  siteId: Number(row.site_id),
  format: row.format,
  status: row.status,
  accepted: Number(row.accepted),
  rejected: Number(row.rejected),
  errors: row.errors.map((e) => ({ line: e.line, reason: e.reason })),
  rangeStart: optionalTime(row.range_start),
  rangeEnd: optionalTime(row.range_end),
  createdAt: rfc3339(row.created_at),
  startedAt: optionalTime(row.started_at),
  finishedAt: optionalTime(row.finished_at),
  failure: row.failure,
});
