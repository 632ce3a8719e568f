export { ERROR_CATALOGUE, ERROR_CODES, isErrorCode, statusOf } from './catalogue.js';
export type { ErrorCode, ErrorCodeInfo } from './catalogue.js';
export { ApiError, isApiError } from './api-error.js';
export type { ApiErrorDetails } from './api-error.js';
export { toGrpcError, fromGrpcError } from './grpc-status.js';
export type { GrpcErrorPayload } from './grpc-status.js';
