import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1 } from '@sightline/proto';
import { clientInfo } from '../edge/client-info.js';
import { errorResponses } from '../schemas/error-responses.js';
import { SendOtpAnswer, SendOtpBody, VerifyOtpAnswer, VerifyOtpBody, expiryForWire, toKeyObject } from '../schemas/identity-schemas.js';

export interface RegistrationRouteOptions {
  identity: identityV1.IdentityServiceClient;
  deadlineMs: number;
}

/**
 * Browserless registration: a code by e-mail, then the code + terms acceptance for
 * a first API key. Both are writes (they create accounts and keys) and carry no
 * authentication; their limits are enforced by identity, in shared counters.
 */
/**
 * Identity's registration limits as the document states them (identity enforces
 * them; apps/launcher/src/openapi-limits.e2e.test.ts holds the two to each other).
 */
const LIMITS = { codesPerAddressPerMinute: 2, codesPerIpPerHour: 5, requestsPerIpPerHour: 20 } as const;
const SHARED_LIMIT = `${LIMITS.requestsPerIpPerHour} requests per IP address per hour across send-otp and verify-otp`;

export const registrationRoutes: FastifyPluginAsyncZod<RegistrationRouteOptions> = async (app, { identity, deadlineMs }) => {
  app.post(
    '/api/v1/auth/send-otp',
    {
      config: { write: true },
      schema: {
        summary: 'Send a six-digit sign-in code by e-mail',
        description:
          'The answer is the same whether or not the address has an account. The code is valid for 10 minutes. ' +
          `Limits (429 rate_limited with Retry-After): ${LIMITS.codesPerAddressPerMinute} codes per address per minute, ${LIMITS.codesPerIpPerHour} codes per IP address per hour, ${SHARED_LIMIT}.`,
        tags: ['registration'],
        body: SendOtpBody,
        response: { 200: SendOtpAnswer, ...errorResponses(400, 404, 429, 503) },
      },
    },
    async (request) => {
      const answer = await callUnary(
        identity,
        identity.sendOtp,
        'Identity/SendOtp',
        { email: request.body.email, client: clientInfo(request) },
        { requestId: request.id, deadlineMs },
      );
      return { sent: answer.sent, email: answer.email };
    },
  );

  app.post(
    '/api/v1/auth/verify-otp',
    {
      config: { write: true },
      schema: {
        summary: 'Exchange the e-mailed code for an API key',
        description:
          'Creates the account when the address has none (`created: true`), records the terms acceptance, and issues a key covering every site of the account. The key always expires and cannot hold billing:write. ' +
          `A code dies after 5 wrong tries. Limit (429 rate_limited with Retry-After): ${SHARED_LIMIT}.`,
        tags: ['registration'],
        body: VerifyOtpBody,
        response: { 200: VerifyOtpAnswer, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const body = request.body;
      const answer = await callUnary(
        identity,
        identity.verifyOtp,
        'Identity/VerifyOtp',
        {
          email: body.email,
          code: body.code,
          acceptTerms: body.accept_terms === true,
          keyName: body.key_name,
          expiresInDays: expiryForWire(body.expires_in_days),
          permissions: body.permissions ?? [],
          permissionsGiven: body.permissions !== undefined,
          client: clientInfo(request),
        },
        { requestId: request.id, deadlineMs },
      );
      return { token: answer.token, created: answer.created, key: toKeyObject(answer.key) };
    },
  );
};
