import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1, sitesV1 } from '@sightline/proto';
import { principalOf } from '../auth/authenticate.js';
import { errorResponses } from '../schemas/error-responses.js';
import { CreateKeyBody, CurrentKeyAnswer, IssuedKeyAnswer, KeyIdParams, KeyListAnswer, expiryForWire, toKeyObject } from '../schemas/identity-schemas.js';

export interface KeyRouteOptions {
  identity: identityV1.IdentityServiceClient;
  sites: sitesV1.SitesServiceClient;
  deadlineMs: number;
}

const security = [{ apiKey: [] }];

/** Key management (`keys:write`): list, create, rotate, revoke. */
export const keyRoutes: FastifyPluginAsyncZod<KeyRouteOptions> = async (app, { identity, sites, deadlineMs }) => {
  const auth = { permission: 'keys:write' } as const;

  app.get(
    '/api/v1/keys',
    {
      config: { write: false, auth },
      schema: {
        summary: 'List the account’s API keys',
        description: 'Revoked keys are not listed; expired ones are, marked `expired`.',
        tags: ['keys'],
        security,
        response: { 200: KeyListAnswer, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(identity, identity.listKeys, 'Identity/ListKeys', { actor: principalOf(request) }, { requestId: request.id, deadlineMs });
      return { keys: answer.keys.map(toKeyObject) };
    },
  );

  // Answered from the verified key alone (no service call): lets a client check what
  // its key may do and when it expires, with any permission.
  app.get(
    '/api/v1/keys/current',
    {
      config: { write: false, auth: {} },
      schema: {
        summary: 'The key making this request',
        description: 'Its permissions, site scope and expiry. Needs no particular permission.',
        tags: ['keys'],
        security,
        response: { 200: CurrentKeyAnswer, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return {
        key_id: principal.keyId,
        account_id: principal.accountId,
        permissions: principal.permissions,
        site_id: principal.siteId ?? null,
        expires_at: principal.expiresAt,
      };
    },
  );

  app.post(
    '/api/v1/keys',
    {
      config: { write: true, auth },
      schema: {
        summary: 'Create an API key',
        description: 'The new key cannot hold a permission the acting key lacks (403 scope_escalation). With `site_id` it is a single-site key.',
        tags: ['keys'],
        security,
        body: CreateKeyBody,
        response: { 201: IssuedKeyAnswer, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const actor = principalOf(request);
      // a single-site key for a site the account cannot reach is refused like any
      // unreachable site (a single-site actor's own scope is identity's rule)
      if (body.site_id !== undefined && actor.siteId === undefined) {
        await callUnary(sites, sites.getSite, 'Sites/GetSite', { actor, siteId: body.site_id }, { requestId: request.id, deadlineMs });
      }
      const answer = await callUnary(
        identity,
        identity.createKey,
        'Identity/CreateKey',
        { actor, name: body.name, permissions: body.permissions, siteId: body.site_id, expiresInDays: expiryForWire(body.expires_in_days) },
        { requestId: request.id, deadlineMs },
      );
      return reply.code(201).send({ token: answer.token, key: toKeyObject(answer.key) });
    },
  );

  app.post(
    '/api/v1/keys/:key_id/rotate',
    {
      config: { write: true, auth },
      schema: {
        summary: 'Rotate an API key',
        description: 'Issues a new secret with the same name, permissions, site and expiry; the old secret stops working at once.',
        tags: ['keys'],
        security,
        params: KeyIdParams,
        response: { 200: IssuedKeyAnswer, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        identity,
        identity.rotateKey,
        'Identity/RotateKey',
        { actor: principalOf(request), keyId: request.params.key_id },
        { requestId: request.id, deadlineMs },
      );
      return { token: answer.token, key: toKeyObject(answer.key) };
    },
  );

  app.delete(
    '/api/v1/keys/:key_id',
    {
      config: { write: true, auth },
      schema: {
        summary: 'Revoke an API key',
        tags: ['keys'],
        security,
        params: KeyIdParams,
        response: { 204: z.null().describe('Revoked; no content.'), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await callUnary(
        identity,
        identity.revokeKey,
        'Identity/RevokeKey',
        { actor: principalOf(request), keyId: request.params.key_id },
        { requestId: request.id, deadlineMs },
      );
      return reply.code(204).send(null);
    },
  );
};
