import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { rfc3339 } from '@sightline/runtime';
import { actorOf, auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite, unknownSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { LIMITS } from '../limits.js';
import type { SitesContext } from '../sites-context.js';
import { positiveId } from '../text-input.js';
import { annotationText, momentOf, type AnnotationMoment } from './annotation-input.js';
import { encodeAnnotationCursor, parseWindow } from './annotation-window.js';

interface AnnotationRow {
  id: number;
  site_id: number;
  /** YYYY-MM-DD (as text: a date column would come back as a Date at local midnight) */
  day: string | null;
  at: Date | null;
  text: string;
  author_account_id: number;
  author_key_id: string;
  created_at: Date;
  updated_at: Date;
  local_day: string;
}

/** The columns of a note with its site-local day, given the site's time zone as `$tz`. */
const columns = (tz: string) =>
  `a.id, a.site_id, to_char(a.day, 'YYYY-MM-DD') AS day, a.at, a.text, a.author_account_id, a.author_key_id, a.created_at, a.updated_at,
   to_char(coalesce(a.day, (a.at AT TIME ZONE ${tz})::date), 'YYYY-MM-DD') AS local_day`;

const toAnnotation = (row: AnnotationRow): sitesV1.Annotation => ({
  annotationId: Number(row.id),
  siteId: Number(row.site_id),
  date: row.day ?? undefined,
  datetime: row.at ? rfc3339(row.at) : undefined,
  localDate: row.local_day,
  text: row.text,
  authorAccountId: Number(row.author_account_id),
  authorKeyId: row.author_key_id,
  createdAt: rfc3339(row.created_at),
  updatedAt: rfc3339(row.updated_at),
});

const unknownAnnotation = (id: number): ApiError => new ApiError('unknown_annotation', `No annotation ${id} on this site.`);

/** What the audit trail keeps of a note. */
const auditView = (row: Pick<AnnotationRow, 'day' | 'at' | 'text'>) => ({ date: row.day, datetime: row.at ? rfc3339(row.at) : null, text: row.text });

/** One page of a site's notes in the window, in time order (see ListAnnotationsResponse). */
async function listPage(q: Queryable, siteId: number, timezone: string, raw: sitesV1.AnnotationWindow | undefined): Promise<sitesV1.ListAnnotationsResponse> {
  const window = parseWindow(raw, siteId);
  const { rows } = await q.query<AnnotationRow>(
    `SELECT * FROM (SELECT ${columns('$2')} FROM sites.annotations a WHERE a.site_id = $1) n
      WHERE ($3::date IS NULL OR n.local_day::date >= $3::date)
        AND ($4::date IS NULL OR n.local_day::date <= $4::date)
        AND ($5::date IS NULL OR (n.local_day::date, coalesce(n.at, '-infinity'::timestamptz), n.id) > ($5::date, coalesce($6::timestamptz, '-infinity'::timestamptz), $7::bigint))
      ORDER BY n.local_day::date, coalesce(n.at, '-infinity'::timestamptz), n.id
      LIMIT $8`,
    [siteId, timezone, window.from, window.to, window.after?.day ?? null, window.after?.at ?? null, window.after?.id ?? null, window.limit + 1],
  );
  const page = rows.slice(0, window.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > window.limit && last
      ? encodeAnnotationCursor(siteId, { day: last.local_day, at: last.at ? rfc3339(last.at) : null, id: Number(last.id) })
      : '';
  return { annotations: page.map(toAnnotation), nextCursor, timezone };
}

export async function listAnnotations(ctx: SitesContext, request: sitesV1.ListAnnotationsRequest): Promise<sitesV1.ListAnnotationsResponse> {
  const actor = actorOf(request.actor);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'read');
  return listPage(ctx.db, site.id, site.timezone, request.window);
}

/** The public dashboard's read: no actor (the gateway proved the share hash and the public flag first). */
export async function listSharedAnnotations(ctx: SitesContext, request: sitesV1.ListSharedAnnotationsRequest): Promise<sitesV1.ListAnnotationsResponse> {
  const siteId = positiveId(request.siteId);
  if (siteId === null) throw unknownSite();
  const { rows } = await ctx.db.query<{ id: number; timezone: string }>('SELECT id, timezone FROM sites.sites WHERE id = $1', [siteId]);
  const site = rows[0];
  if (!site) throw unknownSite();
  return listPage(ctx.db, Number(site.id), site.timezone, request.window);
}

const momentParams = (moment: AnnotationMoment): [string | null, Date | null] => [moment.day, moment.at];

export async function createAnnotation(ctx: SitesContext, request: sitesV1.CreateAnnotationRequest, call: CallContext): Promise<sitesV1.Annotation> {
  const actor = writerOf(request.actor);
  const moment = momentOf(request.date, request.datetime, false)!;
  const text = annotationText(request.text);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  const row = await ctx.db.transaction(async (tx) => {
    // the site row's lock makes the cap exact under concurrent creations
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const { rows: counts } = await tx.query<{ total: number }>('SELECT count(*) AS total FROM sites.annotations WHERE site_id = $1', [site.id]);
    if (Number(counts[0]!.total) >= LIMITS.annotationsPerSite) {
      throw new ApiError(
        'invalid_request',
        `Site ${site.id} already has ${LIMITS.annotationsPerSite} annotations, the most a site may have; delete one first.`,
      );
    }
    const { rows } = await tx.query<AnnotationRow>(
      `WITH a AS (
         INSERT INTO sites.annotations (site_id, day, at, text, author_account_id, author_key_id, created_at, updated_at)
         VALUES ($1, $3::date, $4, $5, $6, $7, $8, $8) RETURNING *)
       SELECT ${columns('$2')} FROM a`,
      [site.id, site.timezone, ...momentParams(moment), text, actor.accountId, actor.keyId, now],
    );
    const note = rows[0]!;
    await recordAudit(tx, source, 'annotation.create', site.id, { annotation_id: Number(note.id), ...auditView(note) }, now);
    return note;
  });
  return toAnnotation(row);
}

export async function updateAnnotation(ctx: SitesContext, request: sitesV1.UpdateAnnotationRequest, call: CallContext): Promise<sitesV1.Annotation> {
  const actor = writerOf(request.actor);
  const moment = momentOf(request.date, request.datetime, true);
  const text = request.text === undefined ? null : annotationText(request.text);
  if (moment === null && text === null) throw new ApiError('invalid_request', 'Send at least one of text, date and datetime.');
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  const row = await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const id = positiveId(request.annotationId);
    if (id === null) throw unknownAnnotation(request.annotationId);
    const { rows: found } = await tx.query<AnnotationRow>(`SELECT ${columns('$3')} FROM sites.annotations a WHERE a.id = $1 AND a.site_id = $2`, [
      id,
      site.id,
      site.timezone,
    ]);
    const before = found[0];
    if (!before) throw unknownAnnotation(id);
    const [day, at] = moment ? momentParams(moment) : [before.day, before.at];
    const { rows } = await tx.query<AnnotationRow>(
      `WITH a AS (UPDATE sites.annotations SET day = $3::date, at = $4, text = $5, updated_at = $6 WHERE id = $1 RETURNING *)
       SELECT ${columns('$2')} FROM a`,
      [id, site.timezone, day, at, text ?? before.text, now],
    );
    const after = rows[0]!;
    await recordAudit(tx, source, 'annotation.update', site.id, { annotation_id: id, before: auditView(before), after: auditView(after) }, now);
    return after;
  });
  return toAnnotation(row);
}

export async function deleteAnnotation(
  ctx: SitesContext,
  request: sitesV1.DeleteAnnotationRequest,
  call: CallContext,
): Promise<sitesV1.DeleteAnnotationResponse> {
  const actor = writerOf(request.actor);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const id = positiveId(request.annotationId);
    if (id === null) throw unknownAnnotation(request.annotationId);
    const { rows } = await tx.query<AnnotationRow>(
      `DELETE FROM sites.annotations a WHERE a.id = $1 AND a.site_id = $2 RETURNING to_char(a.day, 'YYYY-MM-DD') AS day, a.at, a.text`,
      [id, site.id],
    );
    const gone = rows[0];
    if (!gone) throw unknownAnnotation(id);
    await recordAudit(tx, source, 'annotation.delete', site.id, { annotation_id: id, ...auditView(gone) }, now);
  });
  return {};
}
