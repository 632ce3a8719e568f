import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { actorOf, auditOf, callOptions } from '../edge/request-context.js';
import { siteForRequest } from '../reports/site-access.js';
import { errorResponses } from '../schemas/error-responses.js';
import { AddMemberBody, MemberObject, SiteParams, siteIdOf } from '../schemas/sites-schemas.js';

export interface MemberRouteOptions {
  sites: sitesV1.SitesServiceClient;
  identity: identityV1.IdentityServiceClient;
  deadlineMs: number;
  /** a member lost access: cached report reach to the site is dropped on every gateway */
  announceAccessChange?: (change: { site_id: number }) => Promise<void>;
}

const security = [{ apiKey: [] }];
type Role = 'owner' | 'admin' | 'member';

/**
 * Members of a site. The sites service keeps who has which role; identity alone
 * keeps e-mail addresses, so the gateway joins the two for the answer.
 */
export const memberRoutes: FastifyPluginAsyncZod<MemberRouteOptions> = async (app, { sites, identity, deadlineMs, announceAccessChange }) => {
  async function withEmails(request: { id: string }, members: sitesV1.Member[]) {
    const described = await callUnary(
      identity,
      identity.describeAccounts,
      'Identity/DescribeAccounts',
      { accountIds: members.map((m) => m.accountId) },
      { requestId: request.id, deadlineMs },
    );
    const emails = new Map(described.accounts.map((a) => [a.accountId, a.email]));
    return members.map((m) => ({ account_id: m.accountId, email: emails.get(m.accountId) ?? m.email, role: m.role as Role, added_at: m.addedAt }));
  }

  app.get(
    '/api/v1/sites/:id/members',
    {
      config: { write: false, auth: { permission: 'stats:read' } },
      schema: {
        summary: 'List the site’s members',
        description: 'Owner and admins only.',
        tags: ['members'],
        security,
        params: SiteParams,
        response: { 200: z.object({ members: z.array(MemberObject) }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.listMembers,
        'Sites/ListMembers',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id) },
        callOptions(request, deadlineMs),
      );
      return { members: await withEmails(request, answer.members) };
    },
  );

  app.post(
    '/api/v1/sites/:id/members',
    {
      config: { write: true, auth: { permission: 'sites:write' } },
      schema: {
        summary: 'Add a member to the site',
        description: 'The address must belong to an existing Sightline account. Role `admin` may write; `member` may only read. Owner and admins only.',
        tags: ['members'],
        security,
        params: SiteParams,
        body: AddMemberBody,
        response: { 201: MemberObject, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const options = callOptions(request, deadlineMs);
      // reach and role first: whether an address has an account is only told to
      // someone allowed to manage this site's members
      const { siteId } = await siteForRequest(sites, request, request.params.id, 'manage', deadlineMs);
      const account = await callUnary(identity, identity.findAccount, 'Identity/FindAccount', { email: request.body.email }, options);
      if (account.accountId === 0) throw new ApiError('invalid_request', 'No Sightline account uses this address; the person must register first.');
      const member = await callUnary(
        sites,
        sites.addMember,
        'Sites/AddMember',
        { actor, audit: auditOf(request), siteId, accountId: account.accountId, email: account.email, role: request.body.role },
        options,
      );
      return reply.code(201).send({ account_id: member.accountId, email: account.email, role: member.role as Role, added_at: member.addedAt });
    },
  );

  app.delete(
    '/api/v1/sites/:id/members/:account_id',
    {
      config: { write: true, auth: { permission: 'sites:write' } },
      schema: {
        summary: 'Remove a member from the site',
        tags: ['members'],
        security,
        params: SiteParams.extend({ account_id: z.coerce.number().int().positive() }),
        response: { 204: z.null().describe('Removed.'), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const siteId = siteIdOf(request.params.id);
      await callUnary(
        sites,
        sites.removeMember,
        'Sites/RemoveMember',
        { actor: actorOf(request), audit: auditOf(request), siteId, accountId: request.params.account_id },
        callOptions(request, deadlineMs),
      );
      await announceAccessChange?.({ site_id: siteId });
      return reply.code(204).send(null);
    },
  );
};
