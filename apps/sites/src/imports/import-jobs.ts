import { ApiError } from '@sightline/errors';
import { IMPORT_FORMATS } from '@sightline/events-schema';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import type { SitesContext } from '../sites-context.js';
import { IMPORT_JOB_COLUMNS, toImportJob, type ImportJobRow } from './import-job-row.js';

/** A site keeps at most this many job records in a list answer (newest first). */
export const IMPORT_LIST_LIMIT = 100;

export const importNotFound = (importId: number): ApiError =>
  new ApiError('import_not_found', `No import ${importId} on this site. GET /sites/{id}/imports lists them.`);

/** Starting an import is a write (owner or admin, `sites:write`), audited as `import.create`. */
export async function createImport(ctx: SitesContext, request: sitesV1.CreateImportRequest, call: CallContext): Promise<sitesV1.ImportJob> {
  const actor = writerOf(request.actor);
  if (!(IMPORT_FORMATS as readonly string[]).includes(request.format)) {
    throw new ApiError('invalid_request', `format must be one of ${IMPORT_FORMATS.join(', ')}.`);
  }
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  const row = await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const { rows } = await tx.query<ImportJobRow>(
      `INSERT INTO sites.import_jobs (site_id, format, created_by, created_at) VALUES ($1, $2, $3, $4) RETURNING ${IMPORT_JOB_COLUMNS}`,
      [site.id, request.format, actor.accountId, now],
    );
    const job = rows[0]!;
    await recordAudit(tx, source, 'import.create', site.id, { import_id: Number(job.id), format: job.format }, now);
    return job;
  });
  return toImportJob(row);
}

/** Any role may read a site's imports (they are part of its statistics). */
export async function listImports(ctx: SitesContext, request: sitesV1.ListImportsRequest): Promise<sitesV1.ListImportsResponse> {
  const { site } = await reachSite(ctx.db, actorOf(request.actor), request.siteId, 'read');
  const { rows } = await ctx.db.query<ImportJobRow>(
    `SELECT ${IMPORT_JOB_COLUMNS} FROM sites.import_jobs WHERE site_id = $1 ORDER BY id DESC LIMIT ${IMPORT_LIST_LIMIT}`,
    [site.id],
  );
  return { imports: rows.map(toImportJob) };
}

export async function getImport(ctx: SitesContext, request: sitesV1.GetImportRequest): Promise<sitesV1.ImportJob> {
  const { site } = await reachSite(ctx.db, actorOf(request.actor), request.siteId, 'read');
  const { rows } = await ctx.db.query<ImportJobRow>(`SELECT ${IMPORT_JOB_COLUMNS} FROM sites.import_jobs WHERE site_id = $1 AND id = $2`, [
    site.id,
    request.importId,
  ]);
  if (!rows[0]) throw importNotFound(request.importId);
  return toImportJob(rows[0]);
}

/**
 * Removes the job record (the gateway then asks ingest to remove the rows).
 * Idempotent: an import already gone answers `existed: false` and audits nothing.
 */
export async function deleteImport(ctx: SitesContext, request: sitesV1.DeleteImportRequest, call: CallContext): Promise<sitesV1.DeleteImportResponse> {
  const actor = writerOf(request.actor);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const { rows } = await tx.query<{ id: number; format: string }>('DELETE FROM sites.import_jobs WHERE site_id = $1 AND id = $2 RETURNING id, format', [
      site.id,
      request.importId,
    ]);
    if (!rows[0]) return { existed: false };
    await recordAudit(tx, source, 'import.delete', site.id, { import_id: Number(rows[0].id), format: rows[0].format }, now);
    return { existed: true };
  });
}
