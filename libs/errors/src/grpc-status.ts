import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { ApiError, type ApiErrorDetails } from './api-error.js';
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from './catalogue.js';

/**
 * How an ApiError crosses a gRPC boundary: a gRPC status chosen from the HTTP
 * status (so generic gRPC tooling sees something sensible), plus trailing metadata
 * carrying the exact catalogue code and details (so the caller rebuilds the very
 * same ApiError). Anything else becomes INTERNAL with no detail leaked.
 */
const CODE_KEY = 'sightline-error-code';
const DETAILS_KEY = 'sightline-error-details';

const GRPC_BY_HTTP: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  405: GrpcStatus.UNIMPLEMENTED,
  409: GrpcStatus.ALREADY_EXISTS,
  413: GrpcStatus.RESOURCE_EXHAUSTED,
  422: GrpcStatus.RESOURCE_EXHAUSTED,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  500: GrpcStatus.INTERNAL,
  503: GrpcStatus.UNAVAILABLE,
};

export type GrpcErrorPayload = Partial<ServiceError> & { code: GrpcStatus; details: string; metadata: Metadata };

export function toGrpcError(error: unknown): GrpcErrorPayload {
  const apiError = error instanceof ApiError ? error : new ApiError('internal');
  const metadata = new Metadata();
  metadata.set(CODE_KEY, apiError.code);
  if (Object.keys(apiError.details).length > 0) metadata.set(DETAILS_KEY, JSON.stringify(apiError.details));
  return {
    name: 'ApiError',
    message: apiError.message,
    code: GRPC_BY_HTTP[apiError.status] ?? GrpcStatus.INTERNAL,
    details: apiError.message,
    metadata,
  };
}

/** Rebuilds the ApiError a service threw; transport failures become `unavailable`. */
export function fromGrpcError(error: unknown): ApiError {
  const serviceError = error as Partial<ServiceError>;
  const code = serviceError.metadata?.get(CODE_KEY)[0];
  if (isErrorCode(code)) {
    const rawDetails = serviceError.metadata?.get(DETAILS_KEY)[0];
    let details: ApiErrorDetails = {};
    if (typeof rawDetails === 'string') {
      try {
        details = JSON.parse(rawDetails) as ApiErrorDetails;
      } catch {
        details = {};
      }
    }
    return new ApiError(code as ErrorCode, serviceError.details || ERROR_CATALOGUE[code as ErrorCode].message, details);
  }
  // the service was unreachable, too slow, or cut the call while shutting down: retryable
  if (serviceError.code === GrpcStatus.UNAVAILABLE || serviceError.code === GrpcStatus.DEADLINE_EXCEEDED || serviceError.code === GrpcStatus.CANCELLED) {
    return new ApiError('unavailable');
  }
  return new ApiError('internal');
}
