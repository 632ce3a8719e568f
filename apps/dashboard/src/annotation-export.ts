import type { Annotation } from './api/annotations.js';
import type { Cell } from './csv.js';
import { localMinute } from './state/annotation-time.js';

/** annotations.csv of the export: the site-local day and time first, as the graph places them. */
export const ANNOTATION_CSV_HEADER = ['local_date', 'local_time', 'date', 'datetime', 'text', 'author'];

export function annotationRows(notes: readonly Annotation[], timezone: string): Cell[][] {
  return notes.map((n) => [n.local_date, n.datetime ? localMinute(n.datetime, timezone).slice(11) : '', n.date, n.datetime, n.text, n.author ?? '']);
}
