import { ImportRow, type ImportFormat } from '@sightline/events-schema';
import { mapGa4Row } from './ga4-line.js';
import { normaliseRow } from './normalise-row.js';
import type { StagedRow } from './staged-row.js';

export type ParsedLine = { ok: true; row: StagedRow; ms: number } | { ok: false; reason: string };

/** The first zod issue as "field: message", the reason a client reads next to the line number. */
function firstIssue(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid row';
  const field = issue.path.map(String).join('.');
  return (field ? `${field}: ${issue.message}` : issue.message).slice(0, 300);
}

/** One NDJSON line of an upload → a staged row, or the reason it is rejected. */
export function parseImportLine(
  text: string,
  format: ImportFormat,
  ids: { importId: number; siteId: number; line: number; replica?: number },
  now: number,
): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, reason: 'not a JSON object' };
  let candidate: unknown = json;
  if (format === 'ga4-bigquery') {
    const mapped = mapGa4Row(json as Record<string, unknown>);
    if (!mapped.ok) return mapped;
    candidate = mapped.row;
  }
  const parsed = ImportRow.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: firstIssue(parsed.error) };
  return normaliseRow(parsed.data, ids, now);
}
