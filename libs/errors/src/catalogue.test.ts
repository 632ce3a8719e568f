import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES, isErrorCode, statusOf } from './catalogue.js';
import { ApiError } from './api-error.js';

// The spec's Errors section (spec/api.md), transcribed: code → status. The catalogue
// must contain every one of them with exactly this status.
const SPEC_ERRORS: Record<string, number> = {
  invalid_request: 400,
  metrics_required: 400,
  unknown_metric: 400,
  metric_not_available: 400,
  too_many_dimensions: 400,
  unknown_dimension: 400,
  invalid_date_range: 400,
  invalid_interval: 400,
  invalid_filter: 400,
  event_filter_required: 400,
  invalid_compare: 400,
  compare_length_mismatch: 400,
  site_id_required: 400,
  limit_offset_misuse: 400,
  invalid_scope: 400,
  invalid_expiry: 400,
  key_limit_reached: 400,
  terms_not_accepted: 400,
  domain_not_allowed: 400,
  email_undeliverable: 400,
  unauthorized: 401,
  otp_invalid: 401,
  insufficient_scope: 403,
  key_not_scoped: 403,
  tracking_inactive: 403,
  plan_expired: 403,
  not_site_owner: 403,
  scope_escalation: 403,
  unknown_site: 404,
  unknown_funnel: 404,
  goal_not_found: 404,
  api_key_not_found: 404,
  write_disabled: 404,
  not_found: 404,
  method_not_allowed: 405,
  site_exists: 409,
  goal_exists: 409,
  funnel_exists: 409,
  goal_in_use: 409,
  idempotency_conflict: 409,
  self_modification: 409,
  hobby_always_public: 409,
  site_domain_blocked: 409,
  rate_limited: 429,
  internal: 500,
  deletion_unavailable: 503,
};

describe('error catalogue', () => {
  it.each(Object.entries(SPEC_ERRORS))('%s answers HTTP %i', (code, status) => {
    expect(isErrorCode(code)).toBe(true);
    expect(statusOf(code as never)).toBe(status);
  });

  it('adds nothing beyond the spec unless marked as an extension', () => {
    const extra = ERROR_CODES.filter((code) => !(code in SPEC_ERRORS));
    expect(extra.sort()).toEqual(['import_not_found', 'outside_retention', 'payload_too_large', 'query_too_large', 'unavailable', 'unknown_annotation']);
    for (const code of extra) expect(ERROR_CATALOGUE[code]).toHaveProperty('extension', true);
  });

  it('ApiError takes its status from the catalogue and keeps a specific message', () => {
    const error = new ApiError('insufficient_scope', 'missing permission: sites:write');
    expect(error.status).toBe(403);
    expect(error.message).toBe('missing permission: sites:write');
    expect(new ApiError('unknown_site').message).toBe(ERROR_CATALOGUE.unknown_site.message);
  });

  it('rejects strings that are not codes', () => {
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('nope')).toBe(false);
    expect(isErrorCode(404)).toBe(false);
  });
});
