import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { auditSourceOf, writerOf, type AuditSource } from '../access/actor.js';
import { recordAudit } from '../audit/audit.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  parseIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyScope,
} from '../idempotency/idempotency.js';
import { LIMITS } from '../limits.js';
import { newSiteHash, newTrackingKey } from '../random-token.js';
import type { SitesContext } from '../sites-context.js';
import { parseTimezone } from './site-settings-input.js';
import { SITE_COLUMNS, toSite, type SiteRow } from './site-row.js';
import { parseSiteUrl, requireHobbyHost, type SiteOrigin } from './site-url.js';
import { isUniqueViolation, siteExists } from './site-errors.js';

/** The answer stored for an Idempotency-Key and replayed to repeats. */
interface StoredAnswer {
  site: sitesV1.Site;
  firstPaidSite: boolean;
}

interface NewSite {
  origin: SiteOrigin;
  timezone: string;
  hobby: boolean;
}

const CREATED = 201;

/**
 * POST /sites. Everything the request alone decides is checked first (key scope,
 * url, refused zone, timezone, hobby rule), so a refusal writes nothing — not even
 * an idempotency claim. With an Idempotency-Key the key is claimed in its own
 * committed statement; then one transaction creates the site, its owner
 * membership and audit entry, and stores the answer in the claim. If that
 * transaction fails the claim is released, so a retry runs again.
 */
export async function createSite(ctx: SitesContext, request: sitesV1.CreateSiteRequest, call: CallContext): Promise<sitesV1.CreateSiteResponse> {
  const actor = writerOf(request.actor);
  if (actor.siteId !== null) {
    throw new ApiError('key_not_scoped', `This key is limited to site ${actor.siteId}; creating a site needs a key that covers all sites.`);
  }
  const origin = parseSiteUrl(request.url);
  const timezone = request.timezone === undefined ? ctx.settings.defaultTimezone : parseTimezone(request.timezone);
  const hobby = request.hobby ?? false;
  if (hobby) requireHobbyHost(origin.host, ctx.settings.hobbyZones, 'create');
  const key = parseIdempotencyKey(request.idempotencyKey);
  const source = auditSourceOf(actor, request.audit, call);
  const site: NewSite = { origin, timezone, hobby };
  const now = ctx.clock();

  if (key === null) {
    const answer = await ctx.db.transaction((tx) => insertSite(ctx, tx, source, site, now));
    return { status: CREATED, site: answer.site, replayed: false, firstPaidSite: answer.firstPaidSite };
  }

  const scope: IdempotencyScope = { accountId: actor.accountId, key };
  const fingerprint = fingerprintOf({ url: request.url, timezone: request.timezone, hobby: request.hobby });
  const claim = await claimIdempotencyKey<StoredAnswer>(ctx.db, scope, fingerprint, now);
  if (claim.kind === 'replay') {
    return { status: claim.status, site: claim.answer.site, replayed: true, firstPaidSite: claim.answer.firstPaidSite };
  }
  try {
    const answer = await ctx.db.transaction(async (tx) => {
      const created = await insertSite(ctx, tx, source, site, now);
      await completeIdempotencyKey(tx, scope, claim.token, CREATED, created, now);
      return created;
    });
    return { status: CREATED, site: answer.site, replayed: false, firstPaidSite: answer.firstPaidSite };
  } catch (error) {
    await releaseIdempotencyKey(ctx.db, scope, claim.token).catch((releaseError: unknown) =>
      call.log.warn({ err: releaseError }, 'could not release the idempotency claim; it is taken over once stale'),
    );
    throw error;
  }
}

/**
 * Inserts the site in the caller's transaction. The account's bookkeeping row is
 * locked first, so one account's creations take turns: the duplicate check, the
 * cap and "first paid site" cannot race.
 */
async function insertSite(ctx: SitesContext, tx: Queryable, source: AuditSource, site: NewSite, now: Date): Promise<StoredAnswer> {
  const accountId = source.accountId;
  await tx.query('INSERT INTO sites.accounts (account_id, created_at) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING', [accountId, now]);
  const account = await tx.query<{ first_paid_site_at: Date | null }>('SELECT first_paid_site_at FROM sites.accounts WHERE account_id = $1 FOR UPDATE', [
    accountId,
  ]);
  const { rows: counts } = await tx.query<{ total: number; same: number }>(
    'SELECT count(*) AS total, count(*) FILTER (WHERE name = $2) AS same FROM sites.sites WHERE owner_account_id = $1',
    [accountId, site.origin.origin],
  );
  if (Number(counts[0]!.same) > 0) throw siteExists(site.origin.origin);
  if (Number(counts[0]!.total) >= LIMITS.sitesPerAccount) {
    throw new ApiError('invalid_request', `The account already owns ${LIMITS.sitesPerAccount} sites, the most one account may own; delete one first.`);
  }

  let row: SiteRow;
  try {
    const inserted = await tx.query<SiteRow>(
      `INSERT INTO sites.sites (name, hash, tracking_key, timezone, week_start, hobby, owner_account_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $7)
       RETURNING ${SITE_COLUMNS}`,
      [site.origin.origin, newSiteHash(), newTrackingKey(), site.timezone, site.hobby, accountId, now],
    );
    row = inserted.rows[0]!;
  } catch (error) {
    if (isUniqueViolation(error, 'sites_owner_name_unique')) throw siteExists(site.origin.origin);
    throw error;
  }
  await tx.query(`INSERT INTO sites.site_members (site_id, account_id, email, role, added_at, added_by_account_id) VALUES ($1, $2, '', 'owner', $3, $2)`, [
    row.id,
    accountId,
    now,
  ]);
  const firstPaidSite = !site.hobby && account.rows[0]!.first_paid_site_at === null;
  if (firstPaidSite) await tx.query('UPDATE sites.accounts SET first_paid_site_at = $2 WHERE account_id = $1', [accountId, now]);
  await recordAudit(tx, source, 'site.create', row.id, { name: row.name, timezone: row.timezone, hobby: row.hobby, first_paid_site: firstPaidSite }, now);
  return { site: toSite(row, ctx.settings), firstPaidSite };
}
