import { isIP } from 'node:net';
import { ApiError } from '@sightline/errors';
import type { settingsV1 } from '@sightline/proto';
import type { SettingsContext } from './settings-context.js';
import { announce, auditOf, boundedList, lockSite, quote, siteIdOf } from './write.js';

export const MAX_BLOCKED_IPS = 1000;
const MAX_RAW_LENGTH = 100;

/** Canonical text of an address: IPv4 as is, IPv6 compressed lowercase (the WHATWG URL serializer). */
function canonicalAddress(address: string): { text: string; bits: number } | null {
  const version = isIP(address);
  if (version === 4) return { text: address, bits: 32 };
  if (version === 6) {
    if (address.includes('%')) return null; // zone ids name an interface, not an address
    try {
      return { text: new URL(`http://[${address}]/`).hostname.slice(1, -1), bits: 128 };
    } catch {
      return null;
    }
  }
  return null;
}

/** An IPv4/IPv6 address or CIDR range (prefix 0..32 / 0..128), normalized; null if not one. */
export function normalizeIpEntry(raw: string): string | null {
  const slash = raw.indexOf('/');
  const address = canonicalAddress(slash === -1 ? raw : raw.slice(0, slash));
  if (!address) return null;
  if (slash === -1) return address.text;
  const prefix = raw.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefix) || Number(prefix) > address.bits) return null;
  return `${address.text}/${prefix}`;
}

export async function getBlockedIps(ctx: SettingsContext, request: settingsV1.GetBlockedIpsRequest): Promise<settingsV1.BlockedIps> {
  const siteId = siteIdOf(request.siteId);
  const { rows } = await ctx.db.query<{ address: string }>('SELECT address FROM settings.blocked_ips WHERE site_id = $1 ORDER BY position', [siteId]);
  return { siteId, blockedIps: rows.map((r) => r.address) };
}

export async function putBlockedIps(ctx: SettingsContext, request: settingsV1.PutBlockedIpsRequest): Promise<settingsV1.FilterWriteResponse> {
  const siteId = siteIdOf(request.siteId);
  const audit = auditOf(request.actor, request.audit);
  const list: string[] = [];
  for (const raw of boundedList('blocked_ips', request.blockedIps, MAX_BLOCKED_IPS, MAX_RAW_LENGTH)) {
    const entry = normalizeIpEntry(raw.trim());
    if (entry === null) throw new ApiError('invalid_request', `blocked_ips: ${quote(raw)} is not an IPv4/IPv6 address or CIDR range.`);
    if (!list.includes(entry)) list.push(entry);
  }
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    await lockSite(tx, siteId, now);
    await tx.query('DELETE FROM settings.blocked_ips WHERE site_id = $1', [siteId]);
    if (list.length > 0) {
      await tx.query('INSERT INTO settings.blocked_ips (site_id, address, position) SELECT $1, a, p::int FROM unnest($2::text[]) WITH ORDINALITY AS t(a, p)', [
        siteId,
        list,
      ]);
    }
    await announce(tx, siteId, 'blocked_ips', 0, audit, { count: list.length }, now);
  });
  ctx.kickOutbox();
  return { siteId, count: list.length };
}
