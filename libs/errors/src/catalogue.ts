/**
 * Every error `code` the API can answer, with its HTTP status. This table is the
 * contract of the spec's Errors section (spec/api.md): clients branch on `code`,
 * so a code never changes its status or meaning. Adding a code = one row here.
 *
 * `retry` mirrors the spec's retry guidance so clients and docs can be generated
 * from one place. `extension: true` marks codes Sightline adds beyond the spec
 * (documented in libs/errors/README.md).
 */
export interface ErrorCodeInfo {
  status: number;
  /** default human-readable message; a thrower may give a more specific one */
  message: string;
  retry: 'no' | 'yes' | 'after-retry-after' | 'with-backoff' | 'later' | 'confirm-with-get-sites' | 'resend-same-body';
  extension?: true;
}

export const ERROR_CATALOGUE = {
  // 400: nothing was run; repeating unchanged fails the same way
  invalid_request: { status: 400, message: 'The request is malformed.', retry: 'no' },
  metrics_required: { status: 400, message: 'At least one metric is required.', retry: 'no' },
  unknown_metric: { status: 400, message: 'No such metric.', retry: 'no' },
  metric_not_available: { status: 400, message: 'This metric is not available for this dimension.', retry: 'no' },
  too_many_dimensions: { status: 400, message: 'At most one dimension is allowed.', retry: 'no' },
  unknown_dimension: { status: 400, message: 'No such dimension.', retry: 'no' },
  invalid_date_range: { status: 400, message: 'The date range is missing, malformed or outside the allowed span.', retry: 'no' },
  invalid_interval: { status: 400, message: 'The time bucket does not suit the date range.', retry: 'no' },
  invalid_filter: { status: 400, message: 'Bad filter field, operator or value.', retry: 'no' },
  event_filter_required: { status: 400, message: 'event:props:<key> needs an event filter naming one custom event.', retry: 'no' },
  invalid_compare: { status: 400, message: 'compare must be previous_period or a pair of dates.', retry: 'no' },
  compare_length_mismatch: { status: 400, message: 'The compare range must be as long as date_range.', retry: 'no' },
  site_id_required: { status: 400, message: 'site_id is required with an all-sites key.', retry: 'no' },
  limit_offset_misuse: { status: 400, message: 'limit and offset apply to breakdowns only.', retry: 'no' },
  invalid_scope: { status: 400, message: 'Unknown permission, or a permission that cannot be granted here.', retry: 'no' },
  outside_retention: {
    status: 400,
    message:
      'The date range reaches before the raw events this server keeps (EVENTS_RETENTION_DAYS), and only an aggregate, a time series or a visit:channel/source/country/browser/os/device breakdown without filters can be answered from its roll-ups there.',
    retry: 'no',
    extension: true,
  },
  invalid_expiry: { status: 400, message: 'expires_in_days must be between 1 and 365.', retry: 'no' },
  key_limit_reached: { status: 400, message: 'The account is at its cap of active keys.', retry: 'no' },
  terms_not_accepted: { status: 400, message: 'accept_terms must be true; no account was created.', retry: 'no' },
  domain_not_allowed: { status: 400, message: 'Domains in the zones .ru, .su, .by, .рф and .бел are not accepted.', retry: 'no' },
  email_undeliverable: { status: 400, message: 'This address cannot receive mail.', retry: 'no' },
  // 401
  unauthorized: { status: 401, message: 'A valid API key is required.', retry: 'no' },
  otp_invalid: { status: 401, message: 'The code is wrong, expired or already used.', retry: 'no' },
  // 403
  insufficient_scope: { status: 403, message: 'The key lacks a needed permission.', retry: 'no' },
  key_not_scoped: { status: 403, message: 'This key is limited to another site.', retry: 'no' },
  tracking_inactive: { status: 403, message: 'This site no longer collects data.', retry: 'no' },
  plan_expired: { status: 403, message: "The owner's plan has ended; reports are closed until a plan is chosen.", retry: 'no' },
  not_site_owner: { status: 403, message: 'Your role on this site does not allow this.', retry: 'no' },
  scope_escalation: { status: 403, message: 'The acting key holds fewer permissions than the key it acts on.', retry: 'no' },
  // 404
  unknown_site: { status: 404, message: 'No such site.', retry: 'confirm-with-get-sites' },
  unknown_funnel: { status: 404, message: 'No such funnel on this site.', retry: 'no' },
  goal_not_found: { status: 404, message: 'No such goal on this site.', retry: 'no' },
  api_key_not_found: { status: 404, message: 'No such API key.', retry: 'no' },
  import_not_found: { status: 404, message: 'No such import on this site.', retry: 'no', extension: true },
  unknown_annotation: { status: 404, message: 'No such annotation on this site.', retry: 'no', extension: true },
  write_disabled: { status: 404, message: 'Writes are switched off on this deployment.', retry: 'no' },
  not_found: { status: 404, message: 'No route matches this path.', retry: 'no' },
  // 405
  method_not_allowed: { status: 405, message: 'This path does not accept this method.', retry: 'no' },
  // 409
  site_exists: { status: 409, message: 'The account already has a site with this URL.', retry: 'no' },
  goal_exists: { status: 409, message: 'The site already has a goal with this name.', retry: 'no' },
  funnel_exists: { status: 409, message: 'The site already has a funnel with this name.', retry: 'no' },
  goal_in_use: { status: 409, message: 'A funnel still uses this goal.', retry: 'no' },
  idempotency_conflict: {
    status: 409,
    message: 'This Idempotency-Key was used with another body, or its first request is still running.',
    retry: 'resend-same-body',
  },
  self_modification: { status: 409, message: 'A key cannot rotate or revoke itself.', retry: 'no' },
  hobby_always_public: { status: 409, message: 'A hobby site stays public without a paid subscription.', retry: 'no' },
  site_domain_blocked: { status: 409, message: "These hostname lists would block the site's own domain while it is sending events.", retry: 'no' },
  // 413: Sightline extension; the spec asks only for "a clear 4xx"
  payload_too_large: { status: 413, message: 'The request body is too large.', retry: 'no', extension: true },
  // 422: Sightline extension; a report that needs more memory than one statement may use (QUERY_MAX_MEMORY_BYTES)
  query_too_large: {
    status: 422,
    message: 'This report needs more memory than one query may use; narrow the date range, add filters or ask for fewer rows.',
    retry: 'no',
    extension: true,
  },
  // 429 and 5xx
  rate_limited: { status: 429, message: 'An hourly budget ran out.', retry: 'after-retry-after' },
  internal: { status: 500, message: 'Something failed on our side.', retry: 'with-backoff' },
  deletion_unavailable: { status: 503, message: 'The deletion could not be recorded first; nothing was deleted.', retry: 'later' },
  // 503: Sightline extension; a dependency (database, service) is not reachable
  unavailable: { status: 503, message: 'The service is temporarily unavailable.', retry: 'with-backoff', extension: true },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}
