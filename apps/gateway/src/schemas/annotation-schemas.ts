import { z } from 'zod';
import type { sitesV1 } from '@sightline/proto';

const DAY = 'A whole day in the site’s time zone, `YYYY-MM-DD` (1900-01-01 to 2299-12-31).';
const INSTANT = 'An instant, RFC 3339 with an offset (`2026-03-29T14:30:00+02:00`, `…Z`); milliseconds at most. Answered in UTC.';

export const AnnotationObject = z
  .object({
    annotation_id: z.number().int(),
    date: z.string().nullable().describe(`${DAY} Null for a timed note.`),
    datetime: z.string().nullable().describe(`${INSTANT} Null for a day note.`),
    local_date: z
      .string()
      .describe('The site-local day the note falls on: its `date`, or its `datetime` in the site’s time zone (follows a change of time zone).'),
    text: z.string().describe('1 to 280 characters, one line. Plain text: render it as text.'),
    author: z
      .string()
      .describe(
        'Who wrote it: the e-mail address of the account (as member lists name accounts), or the key id when that account no longer exists (or identity could not be asked).',
      ),
    author_key_id: z.string().describe('The key (or `ses_…` dashboard session) that wrote it.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Annotation' });

export const SharedAnnotationObject = AnnotationObject.pick({ annotation_id: true, date: true, datetime: true, local_date: true, text: true }).meta({
  id: 'SharedAnnotation',
  description: 'An annotation as a public dashboard shows it: no author.',
});

export const AnnotationListQuery = z.strictObject({
  from: z.string().max(10).optional().describe('First site-local day of the window, `YYYY-MM-DD` (inclusive). Default: unbounded.'),
  to: z.string().max(10).optional().describe('Last site-local day of the window, `YYYY-MM-DD` (inclusive). Default: unbounded.'),
  limit: z.coerce.number({ error: 'limit must be an integer from 1 to 500, given once.' }).int().min(1).max(500).optional().describe('1 to 500, default 100.'),
  cursor: z.string().max(300).optional().describe('`next_cursor` of the previous page.'),
});

export const AnnotationExportQuery = z.strictObject({
  format: z.enum(['ndjson', 'csv']).describe('`ndjson` (one Annotation object per line) or `csv` (the same columns under a header line).'),
  from: AnnotationListQuery.shape.from,
  to: AnnotationListQuery.shape.to,
});

/** The CSV columns of an annotations export: the Annotation object's fields, in its order. */
export const ANNOTATION_EXPORT_COLUMNS = [
  'annotation_id',
  'date',
  'datetime',
  'local_date',
  'text',
  'author',
  'author_key_id',
  'created_at',
  'updated_at',
] as const;

const csvField = (value: string | number | null): string => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** RFC 4180 text (CRLF line ends, fields with a comma, quote or line break quoted); null is an empty field. */
export function annotationsCsv(notes: ReadonlyArray<z.infer<typeof AnnotationObject>>): string {
  const lines = [ANNOTATION_EXPORT_COLUMNS.join(','), ...notes.map((n) => ANNOTATION_EXPORT_COLUMNS.map((c) => csvField(n[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

const listAnswer = <T extends z.ZodType>(item: T) =>
  z.object({
    annotations: z.array(item).describe('By local day; on a day, day notes first (in creation order), then timed notes by time.'),
    next_cursor: z.string().nullable().describe('Null on the last page; else pass it as `cursor` with the same window.'),
    timezone: z.string().describe('The site’s time zone, in which `local_date`, `from` and `to` are days.'),
  });
export const AnnotationList = listAnswer(AnnotationObject);
export const SharedAnnotationList = listAnswer(SharedAnnotationObject);

// generous raw bounds: the service trims, then counts characters and refuses what is too long
export const CreateAnnotationBody = z.strictObject({
  date: z.string().max(40).optional().describe(`${DAY} Exactly one of \`date\` and \`datetime\`.`),
  datetime: z.string().max(40).optional().describe(INSTANT),
  text: z.string().max(2000).describe('1 to 280 characters after trimming; no line breaks, control or invisible formatting characters.'),
});

export const UpdateAnnotationBody = z.strictObject({
  date: z.string().max(40).optional().describe(`${DAY} Replaces the note’s moment (a timed note becomes a day note).`),
  datetime: z.string().max(40).optional().describe(`${INSTANT} Replaces the note’s moment.`),
  text: z.string().max(2000).optional().describe('1 to 280 characters after trimming.'),
});

export function windowOf(query: z.infer<typeof AnnotationListQuery>): sitesV1.AnnotationWindow {
  return { from: query.from ?? '', to: query.to ?? '', limit: query.limit ?? 0, cursor: query.cursor ?? '' };
}

const moment = (a: sitesV1.Annotation) => ({
  annotation_id: a.annotationId,
  date: a.date ?? null,
  datetime: a.datetime ?? null,
  local_date: a.localDate,
  text: a.text,
});

export function toAnnotationObject(a: sitesV1.Annotation, emails: ReadonlyMap<number, string>): z.infer<typeof AnnotationObject> {
  return {
    ...moment(a),
    author: emails.get(a.authorAccountId) ?? a.authorKeyId,
    author_key_id: a.authorKeyId,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

export function toSharedAnnotationObject(a: sitesV1.Annotation): z.infer<typeof SharedAnnotationObject> {
  return moment(a);
}
