import { ERROR_CATALOGUE, type ErrorCode } from './catalogue.js';

/** Extra, code-specific fields a client may rely on (e.g. Retry-After, Allow). */
export interface ApiErrorDetails {
  /** seconds; rendered as the Retry-After header on 429 */
  retryAfterSeconds?: number;
  /** rendered as the Allow header on 405 */
  allow?: string[];
  /** rendered as `hint` (only not_found and method_not_allowed carry one) */
  hint?: string;
}

/**
 * The one error type services throw for an expected failure. It carries a stable
 * catalogue code; its HTTP status comes from the catalogue, never from the thrower.
 * It crosses gRPC intact (see grpc-status.ts) and the gateway renders it.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ApiErrorDetails;

  constructor(code: ErrorCode, message?: string, details: ApiErrorDetails = {}) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
