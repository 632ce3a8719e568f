import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callUnary } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { actorOf, auditOf, callOptions } from '../edge/request-context.js';
import { errorResponses } from '../schemas/error-responses.js';
import { CreateFunnelBody, CreateGoalBody, FunnelObject, GoalObject, SiteParams, siteIdOf, toFunnelObject, toGoalObject } from '../schemas/sites-schemas.js';

export interface GoalRouteOptions {
  sites: sitesV1.SitesServiceClient;
  deadlineMs: number;
}

const security = [{ apiKey: [] }];
const GoalParams = SiteParams.extend({ goal_id: z.coerce.number().int().positive() });
const FunnelParams = SiteParams.extend({ funnel_id: z.coerce.number().int().positive() });

/** Goals (a custom event or a page) and funnels (ordered goals) of a site. */
export const goalRoutes: FastifyPluginAsyncZod<GoalRouteOptions> = async (app, { sites, deadlineMs }) => {
  const read = { write: false, auth: { permission: 'stats:read' as const } };
  const write = { write: true, auth: { permission: 'sites:write' as const } };

  app.get(
    '/api/v1/sites/:id/goals',
    {
      config: { ...read, auth: { ...read.auth, session: true } },
      schema: {
        summary: 'List the site’s goals',
        tags: ['goals'],
        security,
        params: SiteParams,
        response: { 200: z.object({ goals: z.array(GoalObject) }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.listGoals,
        'Sites/ListGoals',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id) },
        callOptions(request, deadlineMs),
      );
      return { goals: answer.goals.map(toGoalObject) };
    },
  );

  app.post(
    '/api/v1/sites/:id/goals',
    {
      config: write,
      schema: {
        summary: 'Create a goal',
        description: 'Either `event_name` or `page_path` (with `*` wildcards). 409 goal_exists on a duplicate name.',
        tags: ['goals'],
        security,
        params: SiteParams,
        body: CreateGoalBody,
        response: { 201: GoalObject, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const goal = await callUnary(
        sites,
        sites.createGoal,
        'Sites/CreateGoal',
        {
          actor: actorOf(request),
          audit: auditOf(request),
          siteId: siteIdOf(request.params.id),
          eventName: body.event_name,
          pagePath: body.page_path,
          displayName: body.display_name,
        },
        callOptions(request, deadlineMs),
      );
      return reply.code(201).send(toGoalObject(goal));
    },
  );

  app.delete(
    '/api/v1/sites/:id/goals/:goal_id',
    {
      config: write,
      schema: {
        summary: 'Delete a goal',
        description: '409 goal_in_use while a funnel uses it (the message names the funnel).',
        tags: ['goals'],
        security,
        params: GoalParams,
        response: { 204: z.null().describe('Deleted.'), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await callUnary(
        sites,
        sites.deleteGoal,
        'Sites/DeleteGoal',
        { actor: actorOf(request), audit: auditOf(request), siteId: siteIdOf(request.params.id), goalId: request.params.goal_id },
        callOptions(request, deadlineMs),
      );
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/sites/:id/funnels',
    {
      config: { ...read, auth: { ...read.auth, session: true } },
      schema: {
        summary: 'List the site’s funnels',
        tags: ['funnels'],
        security,
        params: SiteParams,
        response: { 200: z.object({ funnels: z.array(FunnelObject) }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        sites,
        sites.listFunnels,
        'Sites/ListFunnels',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id) },
        callOptions(request, deadlineMs),
      );
      return { funnels: answer.funnels.map(toFunnelObject) };
    },
  );

  app.post(
    '/api/v1/sites/:id/funnels',
    {
      config: write,
      schema: {
        summary: 'Create a funnel',
        description: '2 to 8 distinct goals of the site, in order. 409 funnel_exists on a duplicate name.',
        tags: ['funnels'],
        security,
        params: SiteParams,
        body: CreateFunnelBody,
        response: { 201: FunnelObject, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const funnel = await callUnary(
        sites,
        sites.createFunnel,
        'Sites/CreateFunnel',
        { actor: actorOf(request), audit: auditOf(request), siteId: siteIdOf(request.params.id), name: request.body.name, steps: request.body.steps },
        callOptions(request, deadlineMs),
      );
      return reply.code(201).send(toFunnelObject(funnel));
    },
  );

  app.get(
    '/api/v1/sites/:id/funnels/:funnel_id',
    {
      config: read,
      schema: {
        summary: 'Read a funnel',
        tags: ['funnels'],
        security,
        params: FunnelParams,
        response: { 200: FunnelObject, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const funnel = await callUnary(
        sites,
        sites.getFunnel,
        'Sites/GetFunnel',
        { actor: actorOf(request), siteId: siteIdOf(request.params.id), funnelId: request.params.funnel_id },
        callOptions(request, deadlineMs),
      );
      return toFunnelObject(funnel);
    },
  );

  app.delete(
    '/api/v1/sites/:id/funnels/:funnel_id',
    {
      config: write,
      schema: {
        summary: 'Delete a funnel',
        tags: ['funnels'],
        security,
        params: FunnelParams,
        response: { 204: z.null().describe('Deleted.'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await callUnary(
        sites,
        sites.deleteFunnel,
        'Sites/DeleteFunnel',
        { actor: actorOf(request), audit: auditOf(request), siteId: siteIdOf(request.params.id), funnelId: request.params.funnel_id },
        callOptions(request, deadlineMs),
      );
      return reply.code(204).send(null);
    },
  );
};
