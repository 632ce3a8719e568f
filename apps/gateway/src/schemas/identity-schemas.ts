import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import { KEY_NAME_MAX_CHARS } from '@sightline/permissions';
import type { identityV1 } from '@sightline/proto';

// Request schemas check shape only. Rules with their own error code (expiry range,
// known permissions, terms) are the identity service's, so a client gets
// `invalid_expiry` rather than a generic `invalid_request` for `expires_in_days: 0`.

export const SendOtpBody = z.object({ email: z.string().max(320).describe('Where to send the six-digit code.') });
export const SendOtpAnswer = z.object({ sent: z.boolean(), email: z.string() }).meta({ id: 'SendOtpAnswer' });

const expiresInDays = z.number().optional().describe('Days until the key expires, 1 to 365 (default 90).');

/**
 * `expires_in_days` as the wire carries it (uint32). The range 1..365 is identity's
 * rule; a value no uint32 can hold (negative, fractional, huge) cannot be in it
 * either, so it gets identity's answer here instead of a failed encoding.
 */
export function expiryForWire(days: number | undefined): number | undefined {
  if (days === undefined) return undefined;
  if (!Number.isInteger(days) || days < 0 || days > 0xffff_ffff) {
    throw new ApiError('invalid_expiry', `expires_in_days must be a whole number from 1 to 365 (got ${days}).`);
  }
  return days;
}
const permissionList = z.array(z.string().max(40)).max(10);
// identity trims and counts characters: the edge only bounds the text (200 UTF-16
// units), the document states identity's rule
const keyNameField = (description: string) =>
  z
    .string()
    .max(2 * KEY_NAME_MAX_CHARS)
    .meta({ minLength: 1, maxLength: KEY_NAME_MAX_CHARS })
    .describe(`${description} 1 to ${KEY_NAME_MAX_CHARS} characters once trimmed, no control characters; else 400 invalid_request.`);

export const VerifyOtpBody = z.object({
  email: z.string().max(320),
  code: z.string().max(20).describe('The six-digit code from the e-mail.'),
  accept_terms: z
    .boolean()
    .optional()
    .describe(
      'Must be true: the person has read the terms of service and agrees. They are at `GET /terms` on this server (outside /api/v1; it redirects to the operator’s own terms when TERMS_URL is set), also linked as the document’s `termsOfService` and in the sign-in mail.',
    ),
  key_name: keyNameField('Label of the API key issued (required).'),
  expires_in_days: expiresInDays,
  permissions: permissionList.optional().describe('Default: stats:read, sites:write, keys:write. billing:write cannot be requested here.'),
});

export const KeyObject = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the secret, to recognise it.'),
    permissions: z.array(z.string()),
    site_id: z.number().int().nullable().describe('Set for a single-site key; null covers every site.'),
    created_at: z.string(),
    expires_at: z.string(),
    last_used_at: z.string().nullable(),
    expired: z.boolean(),
  })
  .meta({ id: 'ApiKey' });

export const IssuedKeyAnswer = z
  .object({ token: z.string().describe('The secret, shown once; only a hash is stored.'), key: KeyObject })
  .meta({ id: 'IssuedKey' });

export const VerifyOtpAnswer = IssuedKeyAnswer.extend({ created: z.boolean().describe('false when the address already had an account.') }).meta({
  id: 'VerifyOtpAnswer',
});

export const CreateKeyBody = z.object({
  name: keyNameField('Label of the key.'),
  permissions: permissionList,
  site_id: z.number().int().positive().optional().describe('Makes a single-site key.'),
  expires_in_days: expiresInDays,
});

export const KeyIdParams = z.object({ key_id: z.string().max(64) });

export const KeyListAnswer = z.object({ keys: z.array(KeyObject) }).meta({ id: 'ApiKeyList' });

export const CurrentKeyAnswer = z
  .object({
    key_id: z.string(),
    account_id: z.number().int(),
    permissions: z.array(z.string()),
    site_id: z.number().int().nullable(),
    expires_at: z.string(),
  })
  .meta({ id: 'CurrentKey' });

export const SubscriptionBody = z.object({ status: z.string().max(20).describe('active, past_due or canceled.') });

export const PlanObject = z
  .object({
    plan: z.enum(['free', 'trial', 'active', 'past_due', 'expired', 'lapsed']),
    subscription_status: z.string(),
    trial_started_at: z.string().nullable(),
    trial_ends_at: z.string().nullable(),
    grace_ends_at: z.string().nullable(),
    reports_open: z.boolean(),
    tracking_active: z.boolean(),
  })
  .meta({ id: 'Plan' });

export function toKeyObject(key: identityV1.ApiKey | undefined): z.infer<typeof KeyObject> {
  if (!key) throw new Error('identity answered without a key');
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    permissions: key.permissions,
    site_id: key.siteId ?? null,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt ?? null,
    expired: key.expired,
  };
}

export function toPlanObject(plan: identityV1.PlanState): z.infer<typeof PlanObject> {
  return {
    plan: plan.plan as z.infer<typeof PlanObject>['plan'],
    subscription_status: plan.subscriptionStatus,
    trial_started_at: plan.trialStartedAt ?? null,
    trial_ends_at: plan.trialEndsAt ?? null,
    grace_ends_at: plan.graceEndsAt ?? null,
    reports_open: plan.reportsOpen,
    tracking_active: plan.trackingActive,
  };
}
