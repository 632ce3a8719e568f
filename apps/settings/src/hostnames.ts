import { domainToASCII } from 'node:url';
import type { Queryable } from '@sightline/db';
import { ApiError } from '@sightline/errors';
import type { settingsV1 } from '@sightline/proto';
import type { SettingsContext } from './settings-context.js';
import { announce, auditOf, boundedList, lockSite, quote, siteIdOf } from './write.js';

export const MAX_HOSTNAMES = 500;
const MAX_RAW_LENGTH = 300;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A plain hostname, optionally with a leading `*.` (its proper subdomains), as
 * lowercase ASCII (punycode); null for anything else (scheme, path, port, spaces,
 * empty labels, bare `*`).
 */
export function normalizeHostname(raw: string): string | null {
  const wildcard = raw.startsWith('*.');
  const body = wildcard ? raw.slice(2) : raw;
  if (body === '' || /[\s/:?#@\\[\]%*]/.test(body)) return null;
  const ascii = domainToASCII(body.toLowerCase());
  if (ascii === '' || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.some((label) => !LABEL.test(label))) return null;
  if (wildcard && labels.length < 2) return null;
  return wildcard ? `*.${ascii}` : ascii;
}

/** Whether a (normalized) pattern matches a host: exactly, or `*.x` any proper subdomain of x. */
export function hostMatches(pattern: string, host: string): boolean {
  return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : pattern === host;
}

/** Whether lists would keep the site's own host from being counted. */
export function blocksHost(allowed: readonly string[], blocked: readonly string[], host: string): boolean {
  if (blocked.some((p) => hostMatches(p, host))) return true;
  return allowed.length > 0 && !allowed.some((p) => hostMatches(p, host));
}

function listOf(field: string, values: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of boundedList(field, values, MAX_HOSTNAMES, MAX_RAW_LENGTH)) {
    const host = normalizeHostname(raw.trim());
    if (host === null) {
      throw new ApiError(
        'invalid_request',
        `${field}: ${quote(raw)} is not a hostname (plain host names only, optionally starting with "*.", no scheme, path or port).`,
      );
    }
    if (!out.includes(host)) out.push(host);
  }
  return out;
}

async function readList(db: Queryable, siteId: number, kind: 'allowed' | 'blocked'): Promise<string[]> {
  const { rows } = await db.query<{ hostname: string }>('SELECT hostname FROM settings.hostname_filters WHERE site_id = $1 AND kind = $2 ORDER BY position', [
    siteId,
    kind,
  ]);
  return rows.map((r) => r.hostname);
}

export async function getHostnames(ctx: SettingsContext, request: settingsV1.GetHostnamesRequest): Promise<settingsV1.Hostnames> {
  const siteId = siteIdOf(request.siteId);
  return { siteId, allowed: await readList(ctx.db, siteId, 'allowed'), blocked: await readList(ctx.db, siteId, 'blocked') };
}

export async function putHostnames(ctx: SettingsContext, request: settingsV1.PutHostnamesRequest): Promise<settingsV1.FilterWriteResponse> {
  const siteId = siteIdOf(request.siteId);
  const audit = auditOf(request.actor, request.audit);
  const allowed = listOf('allowed', request.allowed);
  const blocked = listOf('blocked', request.blocked);
  if (request.siteRecentlyActive) {
    const siteHost = normalizeHostname(request.siteHost.trim());
    if (siteHost === null || siteHost.startsWith('*.')) throw new ApiError('invalid_request', "site_host must be the site's own host name.");
    if (blocksHost(allowed, blocked, siteHost)) {
      throw new ApiError(
        'site_domain_blocked',
        `These lists would block the site's own domain ${siteHost}, which sent events in the last 7 days; nothing was written.`,
      );
    }
  }
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    await lockSite(tx, siteId, now);
    await tx.query('DELETE FROM settings.hostname_filters WHERE site_id = $1', [siteId]);
    for (const [kind, list] of [
      ['allowed', allowed],
      ['blocked', blocked],
    ] as const) {
      if (list.length === 0) continue;
      await tx.query(
        `INSERT INTO settings.hostname_filters (site_id, kind, hostname, position)
         SELECT $1, $2, h, p::int FROM unnest($3::text[]) WITH ORDINALITY AS t(h, p)`,
        [siteId, kind, list],
      );
    }
    await announce(tx, siteId, 'hostnames', 0, audit, { allowed_count: allowed.length, blocked_count: blocked.length }, now);
  });
  ctx.kickOutbox();
  return { siteId, count: allowed.length + blocked.length };
}
