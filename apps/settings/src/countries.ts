import type { Queryable } from '@sightline/db';
import { ApiError } from '@sightline/errors';
import type { settingsV1 } from '@sightline/proto';
import { COUNTRY_CODES } from './country-codes.js';
import type { SettingsContext } from './settings-context.js';
import { announce, auditOf, boundedList, lockSite, quote, siteIdOf } from './write.js';

export const MAX_COUNTRIES = 300;
type Kind = 'allowed' | 'blocked';

function listOf(field: Kind, values: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of boundedList(field, values, MAX_COUNTRIES, 10)) {
    const code = raw.trim().toUpperCase();
    if (!COUNTRY_CODES.has(code)) throw new ApiError('invalid_request', `${field}: ${quote(raw)} is not an ISO 3166-1 alpha-2 country code.`);
    if (!out.includes(code)) out.push(code);
  }
  return out;
}

async function readList(db: Queryable, siteId: number, kind: Kind): Promise<settingsV1.CountryEntry[]> {
  const { rows } = await db.query<{ code: string; created_at: Date }>(
    'SELECT code, created_at FROM settings.country_filters WHERE site_id = $1 AND kind = $2 ORDER BY position',
    [siteId, kind],
  );
  return rows.map((r) => ({ code: r.code, createdAt: r.created_at.toISOString() }));
}

export async function getCountries(ctx: SettingsContext, request: settingsV1.GetCountriesRequest): Promise<settingsV1.Countries> {
  const siteId = siteIdOf(request.siteId);
  return { siteId, allowed: await readList(ctx.db, siteId, 'allowed'), blocked: await readList(ctx.db, siteId, 'blocked') };
}

/** Replaces both lists; a code kept on a list keeps its created_at, a new one gets now. */
export async function putCountries(ctx: SettingsContext, request: settingsV1.PutCountriesRequest): Promise<settingsV1.FilterWriteResponse> {
  const siteId = siteIdOf(request.siteId);
  const audit = auditOf(request.actor, request.audit);
  const lists: Record<Kind, string[]> = { allowed: listOf('allowed', request.allowed), blocked: listOf('blocked', request.blocked) };
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    await lockSite(tx, siteId, now);
    for (const kind of ['allowed', 'blocked'] as const) {
      const list = lists[kind];
      await tx.query('DELETE FROM settings.country_filters WHERE site_id = $1 AND kind = $2 AND NOT (code = ANY($3::text[]))', [siteId, kind, list]);
      if (list.length === 0) continue;
      await tx.query(
        `INSERT INTO settings.country_filters (site_id, kind, code, position, created_at)
         SELECT $1, $2, c, p::int, $4 FROM unnest($3::text[]) WITH ORDINALITY AS t(c, p)
         ON CONFLICT (site_id, kind, code) DO UPDATE SET position = EXCLUDED.position`,
        [siteId, kind, list, now],
      );
    }
    await announce(tx, siteId, 'countries', 0, audit, { allowed: lists.allowed, blocked: lists.blocked }, now);
  });
  ctx.kickOutbox();
  return { siteId, count: lists.allowed.length + lists.blocked.length };
}
