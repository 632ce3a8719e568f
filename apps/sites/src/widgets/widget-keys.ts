import { timingSafeEqual } from 'node:crypto';
import { SUBJECTS } from '@sightline/bus';
import { ApiError } from '@sightline/errors';
import type { Queryable } from '@sightline/db';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { rfc3339 } from '@sightline/runtime';
import { actorOf, auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite, unknownSite } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { enqueueMessage, type SiteUpdatedPayload } from '../outbox/outbox.js';
import type { SitesContext } from '../sites-context.js';
import { SITE_COLUMNS_S, toSite, type SiteRow } from '../sites/site-row.js';
import { WIDGET_KEY_PATTERN, deriveWidgetKey, newWidgetSalt, widgetKeySha256 } from './widget-key.js';

/** Without SECRET_KEY no key can be derived: the widget routes answer 503, the rest of the service works. */
function secretOf(ctx: SitesContext): string {
  if (!ctx.settings.secretKey) throw new ApiError('unavailable', 'Widget keys need SECRET_KEY on the sites service.');
  return ctx.settings.secretKey;
}

/** PostgreSQL's foreign_key_violation: the site went between the reach check and the insert. */
const isForeignKeyViolation = (error: unknown): boolean => (error as { code?: string }).code === '23503';

/** The site's salt, created on first use (two first uses at once keep one). */
async function saltOf(q: Queryable, secretKey: string, siteId: number, now: Date): Promise<string> {
  const found = await q.query<{ salt: string; key_sha256: string }>('SELECT salt, key_sha256 FROM sites.widget_keys WHERE site_id = $1', [siteId]);
  const row = found.rows[0];
  if (row) {
    // SECRET_KEY changed since the row was written: the stored hash must name today's key
    const sha = widgetKeySha256(deriveWidgetKey(secretKey, siteId, row.salt));
    if (sha !== row.key_sha256) await q.query('UPDATE sites.widget_keys SET key_sha256 = $2 WHERE site_id = $1 AND salt = $3', [siteId, sha, row.salt]);
    return row.salt;
  }
  const salt = newWidgetSalt();
  try {
    await q.query('INSERT INTO sites.widget_keys (site_id, salt, key_sha256, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (site_id) DO NOTHING', [
      siteId,
      salt,
      widgetKeySha256(deriveWidgetKey(secretKey, siteId, salt)),
      now,
    ]);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownSite();
    throw error;
  }
  const stored = await q.query<{ salt: string }>('SELECT salt FROM sites.widget_keys WHERE site_id = $1', [siteId]);
  if (!stored.rows[0]) throw unknownSite();
  return stored.rows[0].salt;
}

/** GET /sites/{id}/snippet?type=…: the key, for anyone who may read the site (members too). */
export async function getWidgetKey(ctx: SitesContext, request: sitesV1.GetWidgetKeyRequest): Promise<sitesV1.WidgetKey> {
  const actor = actorOf(request.actor);
  const secretKey = secretOf(ctx);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'read');
  const salt = await saltOf(ctx.db, secretKey, site.id, ctx.clock());
  return { siteId: site.id, key: deriveWidgetKey(secretKey, site.id, salt) };
}

/**
 * POST /sites/{id}/widget-key/rotate: owner or admin. A new salt in the site's write
 * turn; the old key's hash is gone with the commit, so the sites service refuses it at
 * once, and `site.updated` tells every gateway to drop what it cached for the site.
 */
export async function rotateWidgetKey(ctx: SitesContext, request: sitesV1.RotateWidgetKeyRequest, call: CallContext): Promise<sitesV1.WidgetKey> {
  const actor = writerOf(request.actor);
  const secretKey = secretOf(ctx);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  const answer = await ctx.db.transaction(async (tx) => {
    const { site } = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const salt = newWidgetSalt();
    const key = deriveWidgetKey(secretKey, site.id, salt);
    await tx.query(
      `INSERT INTO sites.widget_keys (site_id, salt, key_sha256, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (site_id) DO UPDATE SET salt = EXCLUDED.salt, key_sha256 = EXCLUDED.key_sha256, created_at = EXCLUDED.created_at`,
      [site.id, salt, widgetKeySha256(key), now],
    );
    // the trail never holds a key (nor anything a key could be derived from)
    await recordAudit(tx, source, 'site.widget_key.rotate', site.id, {}, now);
    const payload: SiteUpdatedPayload = {
      site_id: site.id,
      account_id: site.owner_account_id,
      tracking_key: site.tracking_key,
      name: site.name,
      timezone: site.timezone,
      week_start: site.week_start,
      updated_at: rfc3339(now),
    };
    await enqueueMessage(tx, SUBJECTS.siteUpdated, payload, now);
    return { siteId: site.id, key };
  });
  ctx.kickOutbox();
  return answer;
}

/**
 * The site a widget key names, or `unknown_site` (malformed, rotated, deleted site, or a
 * SECRET_KEY that no longer derives it). Found by the key's SHA-256, then derived again
 * from the salt and compared in constant time.
 */
export async function getSiteByWidgetKey(ctx: SitesContext, request: sitesV1.GetSiteByWidgetKeyRequest): Promise<sitesV1.Site> {
  if (!WIDGET_KEY_PATTERN.test(request.key)) throw unknownSite();
  const secretKey = secretOf(ctx);
  const { rows } = await ctx.db.query<SiteRow & { salt: string }>(
    `SELECT ${SITE_COLUMNS_S}, w.salt FROM sites.widget_keys w JOIN sites.sites s ON s.id = w.site_id WHERE w.key_sha256 = $1`,
    [widgetKeySha256(request.key)],
  );
  const row = rows[0];
  if (!row) throw unknownSite();
  const { salt, ...site } = row;
  const expected = Buffer.from(deriveWidgetKey(secretKey, site.id, salt));
  const given = Buffer.from(request.key);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw unknownSite();
  return toSite(site, ctx.settings);
}
