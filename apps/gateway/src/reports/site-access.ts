import type { FastifyRequest } from 'fastify';
import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, callOptions } from '../edge/request-context.js';
import { siteIdOf } from '../schemas/sites-schemas.js';

/**
 * The site behind `{id}` after the sites service's reach check (unknown_site,
 * key_not_scoped), and for `manage` the role check: members may read, owner and
 * admins manage. For routes whose own service does not know roles (settings), or
 * that must check before asking another service (identity, for member addresses).
 */
export async function siteForRequest(
  sites: sitesV1.SitesServiceClient,
  request: FastifyRequest,
  rawSiteId: string,
  need: 'read' | 'manage',
  deadlineMs: number,
): Promise<sitesV1.Site> {
  const { site, role } = await callUnary(
    sites,
    sites.getSite,
    'Sites/GetSite',
    { actor: actorOf(request), siteId: siteIdOf(rawSiteId) },
    callOptions(request, deadlineMs),
  );
  if (need === 'manage' && role === 'member') throw new ApiError('not_site_owner', 'Members may read this site but not manage it; ask the owner or an admin.');
  return site!;
}
