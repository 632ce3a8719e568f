/**
 * The annotations API over a data source: the session's CRUD under
 * /api/v1/sites/{id}/annotations, or the share's read-only list (no authors).
 */
import { call, type DataSource } from './client.js';

export interface Annotation {
  annotation_id: number;
  /** a whole site-local day, or null for a timed note */
  date: string | null;
  /** an instant (UTC), or null for a day note */
  datetime: string | null;
  /** the site-local day it falls on */
  local_date: string;
  text: string;
  /** absent on a shared dashboard */
  author?: string;
}

interface Page {
  annotations: Annotation[];
  next_cursor: string | null;
}

const PAGE = 500;
/** a site holds at most 1000 notes: three pages always reach the end */
const MAX_PAGES = 3;

/** Every note whose local day is in [from, to], in time order. */
export async function listAnnotations(source: DataSource, from: string, to: string, signal?: AbortSignal): Promise<Annotation[]> {
  const base = source.kind === 'share' ? `/api/v1/share/${encodeURIComponent(source.hash)}/annotations` : `/api/v1/sites/${source.siteId}/annotations`;
  const notes: Annotation[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = `?from=${from}&to=${to}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer: Page = await call<Page>('GET', `${base}${query}`, {
      retry: true,
      ...(source.kind === 'session' ? { csrfToken: source.csrfToken } : {}),
      ...(signal ? { signal } : {}),
    });
    notes.push(...answer.annotations);
    cursor = answer.next_cursor;
    if (!cursor) break;
  }
  return notes;
}

export type AnnotationInput = { text: string } & ({ date: string } | { datetime: string });

type SessionSource = Extract<DataSource, { kind: 'session' }>;

export const annotationWrites = {
  create: (source: SessionSource, input: AnnotationInput) =>
    call<Annotation>('POST', `/api/v1/sites/${source.siteId}/annotations`, { body: input, csrfToken: source.csrfToken }),
  update: (source: SessionSource, id: number, input: AnnotationInput) =>
    call<Annotation>('PATCH', `/api/v1/sites/${source.siteId}/annotations/${id}`, { body: input, csrfToken: source.csrfToken }),
  remove: (source: SessionSource, id: number) => call<void>('DELETE', `/api/v1/sites/${source.siteId}/annotations/${id}`, { csrfToken: source.csrfToken }),
};
