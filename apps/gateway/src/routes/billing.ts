import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1 } from '@sightline/proto';
import { principalOf } from '../auth/authenticate.js';
import { errorResponses } from '../schemas/error-responses.js';
import { PlanObject, SubscriptionBody, toPlanObject } from '../schemas/identity-schemas.js';

export interface BillingRouteOptions {
  identity: identityV1.IdentityServiceClient;
  deadlineMs: number;
  /** the account's plan changed: cached report access of every gateway is dropped */
  announceAccessChange?: (change: { account_id: number }) => Promise<void>;
}

/** The billing integration sets the subscription with a `billing:write` key (minted by an operator). */
export const billingRoutes: FastifyPluginAsyncZod<BillingRouteOptions> = async (app, { identity, deadlineMs, announceAccessChange }) => {
  app.put(
    '/api/v1/billing/subscription',
    {
      config: { write: true, auth: { permission: 'billing:write' } },
      schema: {
        summary: 'Set the account’s subscription',
        description: '`active` and `past_due` count as paid; `canceled` returns the account to its trial state (expired if the trial is over).',
        tags: ['billing'],
        security: [{ apiKey: [] }],
        body: SubscriptionBody,
        response: { 200: PlanObject, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const plan = await callUnary(
        identity,
        identity.setSubscription,
        'Identity/SetSubscription',
        { actor: principalOf(request), status: request.body.status },
        { requestId: request.id, deadlineMs },
      );
      await announceAccessChange?.({ account_id: principalOf(request).accountId });
      return toPlanObject(plan);
    },
  );
};
