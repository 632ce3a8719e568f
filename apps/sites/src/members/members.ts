import { ApiError } from '@sightline/errors';
import type { CallContext } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, auditSourceOf, writerOf } from '../access/actor.js';
import { reachSite, type Role } from '../access/reach.js';
import { recordAudit } from '../audit/audit.js';
import { LIMITS } from '../limits.js';
import type { SitesContext } from '../sites-context.js';
import { rfc3339 } from '@sightline/runtime';

/*
 * Members: the owner and admins manage them (a member calling any of these gets
 * 403 not_site_owner). Admins manage plain members only: granting the admin role,
 * changing or removing an admin is the owner's — except that an admin may remove
 * themselves. The owner is listed (email '': identity knows it) and can be neither
 * added nor removed.
 */

interface MemberRow {
  account_id: number;
  email: string;
  role: Role;
  added_at: Date;
}

const toMember = (row: MemberRow): sitesV1.Member => ({ accountId: row.account_id, email: row.email, role: row.role, addedAt: rfc3339(row.added_at) });

function targetAccountOf(accountId: number): number {
  if (!Number.isSafeInteger(accountId) || accountId <= 0) throw new ApiError('invalid_request', 'account_id must name an existing account.');
  return accountId;
}

export async function listMembers(ctx: SitesContext, request: sitesV1.ListMembersRequest): Promise<sitesV1.ListMembersResponse> {
  const actor = actorOf(request.actor);
  const { site } = await reachSite(ctx.db, actor, request.siteId, 'manage');
  const { rows } = await ctx.db.query<MemberRow>(
    `SELECT account_id, email, role, added_at FROM sites.site_members
      WHERE site_id = $1
      ORDER BY (role = 'owner') DESC, added_at, account_id`,
    [site.id],
  );
  return { members: rows.map(toMember) };
}

/** Adds an existing account (resolved by the gateway) as admin or member; re-adding a member sets its role and email. */
export async function addMember(ctx: SitesContext, request: sitesV1.AddMemberRequest, call: CallContext): Promise<sitesV1.Member> {
  const actor = writerOf(request.actor);
  const accountId = targetAccountOf(request.accountId);
  const email = request.email.trim().toLowerCase();
  if (email === '' || email.length > LIMITS.emailLength || !email.includes('@')) {
    throw new ApiError('invalid_request', `email must be the member's address (at most ${LIMITS.emailLength} characters).`);
  }
  if (request.role !== 'admin' && request.role !== 'member') throw new ApiError('invalid_request', 'role must be "admin" or "member".');
  const role: Role = request.role;
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();

  const row = await ctx.db.transaction(async (tx) => {
    const reached = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const siteId = reached.site.id;
    if (accountId === reached.site.owner_account_id) {
      throw new ApiError('invalid_request', `Account ${accountId} owns site ${siteId}; the owner is always on the site and keeps the owner role.`);
    }
    const { rows: existingRows } = await tx.query<MemberRow>(
      'SELECT account_id, email, role, added_at FROM sites.site_members WHERE site_id = $1 AND account_id = $2',
      [siteId, accountId],
    );
    const existing = existingRows[0];
    if (reached.role === 'admin' && (role === 'admin' || existing?.role === 'admin')) {
      throw new ApiError('not_site_owner', `Only the owner of site ${siteId} grants, changes or takes away the admin role; admins manage members.`);
    }
    if (existing && existing.role === role && existing.email === email) return existing;
    if (!existing) {
      const { rows } = await tx.query<{ n: number }>('SELECT count(*) AS n FROM sites.site_members WHERE site_id = $1', [siteId]);
      if (Number(rows[0]!.n) >= LIMITS.membersPerSite) {
        throw new ApiError(
          'invalid_request',
          `Site ${siteId} already has ${LIMITS.membersPerSite} people (owner included), the most a site may have; remove one first.`,
        );
      }
    }
    const { rows } = await tx.query<MemberRow>(
      `INSERT INTO sites.site_members (site_id, account_id, email, role, added_at, added_by_account_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (site_id, account_id) DO UPDATE SET email = EXCLUDED.email, role = EXCLUDED.role
       RETURNING account_id, email, role, added_at`,
      [siteId, accountId, email, role, now, actor.accountId],
    );
    await recordAudit(tx, source, 'member.add', siteId, { account_id: accountId, email, role, previous_role: existing?.role ?? null }, now);
    return rows[0]!;
  });
  return toMember(row);
}

/** Removes a member or admin. Not on the site → 400 `invalid_request` (there is no member-specific 404 code). */
export async function removeMember(ctx: SitesContext, request: sitesV1.RemoveMemberRequest, call: CallContext): Promise<sitesV1.RemoveMemberResponse> {
  const actor = writerOf(request.actor);
  const accountId = targetAccountOf(request.accountId);
  const source = auditSourceOf(actor, request.audit, call);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const reached = await reachSite(tx, actor, request.siteId, 'manage', { lock: true });
    const siteId = reached.site.id;
    if (accountId === reached.site.owner_account_id) {
      throw new ApiError('invalid_request', `Account ${accountId} owns site ${siteId}; the owner cannot be removed (delete the site instead).`);
    }
    const { rows } = await tx.query<MemberRow>('SELECT account_id, email, role, added_at FROM sites.site_members WHERE site_id = $1 AND account_id = $2', [
      siteId,
      accountId,
    ]);
    const member = rows[0];
    if (!member) throw new ApiError('invalid_request', `Account ${accountId} is not a member of site ${siteId}.`);
    if (reached.role === 'admin' && member.role === 'admin' && accountId !== actor.accountId) {
      throw new ApiError('not_site_owner', `Only the owner of site ${siteId} removes admins; admins manage members (and may remove themselves).`);
    }
    await tx.query('DELETE FROM sites.site_members WHERE site_id = $1 AND account_id = $2', [siteId, accountId]);
    await recordAudit(tx, source, 'member.remove', siteId, { account_id: accountId, email: member.email, role: member.role }, now);
  });
  return {};
}
