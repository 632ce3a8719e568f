import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, isApiError } from '@sightline/errors';
import type { ErrorObject } from '../schemas/error-object.js';

/**
 * Turns any failure into the spec's error object. Known failures keep their code;
 * framework errors map to the nearest catalogue code; anything unexpected becomes
 * 500 `internal` with the details only in the log — never a stack trace on the wire.
 */
export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  // `throw undefined` / `throw null` happen too; they must still render as internal
  const fastifyError = (error ?? {}) as Partial<FastifyError> & { validation?: unknown };
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation
      .map((issue) => `${issue.instancePath ? issue.instancePath.slice(1).replaceAll('/', '.') : 'body'}: ${issue.message}`)
      .join('; ');
    return new ApiError('invalid_request', `Invalid ${error.validationContext ?? 'request'}: ${issues}`);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'Unsupported Content-Type; send application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The body is not valid JSON.');
    default:
      break;
  }
  // fastify's JSON parser throws a plain SyntaxError tagged with status 400
  if (fastifyError.statusCode === 400 && error instanceof SyntaxError) {
    return new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  if (fastifyError.statusCode === 413) return new ApiError('payload_too_large');
  // the client went away or sent less than it announced (fastify tags it 400)
  if (fastifyError.code === 'ECONNRESET' || fastifyError.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new ApiError('invalid_request', 'The body ended before its Content-Length.');
  }
  // any other failure fastify attributes to the request is the client's: no 5xx, no framework code
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && typeof fastifyError.code === 'string' && fastifyError.code.startsWith('FST_')) {
    return new ApiError('invalid_request', fastifyError.message ?? undefined);
  }
  return new ApiError('internal');
}

export function errorBody(requestId: string, error: ApiError, extra: Partial<ErrorObject> = {}): ErrorObject {
  return { code: error.code, error: error.message, request_id: requestId, ...extra };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError, extra: Partial<ErrorObject> = {}): FastifyReply {
  // set here too: failures raised before the onRequest hooks (router errors) skip them
  reply.header('x-request-id', request.id);
  if (error.details.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.details.retryAfterSeconds));
  if (error.details.allow) reply.header('allow', error.details.allow.join(', '));
  // sent as JSON text: a string under a JSON content type skips the route's response
  // serializer (a zod encode of an object `errorBody` already types as the error object)
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(request.id, error, extra)));
}

export function registerErrorRenderer(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal') {
      request.log.error({ err: error }, 'unexpected failure');
    }
    return sendError(request, reply, apiError);
  });
}
