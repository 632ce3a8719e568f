import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '@sightline/errors';
import type { Logger } from '@sightline/telemetry';
import { errorBody, sendError } from './render-error.js';
import { newRequestId } from './request-id.js';

/** The catalogue error for a failure fastify's router raises before any route or hook runs. */
export function frameworkErrorToApiError(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The path is not valid percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A path segment is longer than 200 characters; no resource has such an id.');
    default:
      return new ApiError('invalid_request');
  }
}

/** fastify's `frameworkErrors` option: router failures get the error object and X-Request-ID like any other. */
export function renderFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void sendError(request, reply, frameworkErrorToApiError(error));
}

/** The catalogue error for a request Node's HTTP parser refused (it never reached fastify). */
export function clientErrorToApiError(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('payload_too_large', 'The request headers are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('invalid_request', 'The request was not received in time.');
    case 'HPE_INVALID_METHOD':
      return new ApiError('invalid_request', 'Unknown HTTP method.');
    default:
      return new ApiError('invalid_request', 'The request is not valid HTTP/1.1.');
  }
}

/**
 * fastify's `clientErrorHandler`: Node answers a request its parser refuses (an
 * unknown method, a broken header, a body cut short) on the raw socket, before
 * fastify exists for it. Same contract as every other answer: a request id in
 * the header and the body, a code from the catalogue. Written by hand because
 * there is no reply object; the socket is closed after (the stream is unusable).
 */
export function clientErrorHandler(log: Logger): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    // a reset socket has nobody to answer; a response already under way must not be corrupted
    const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    const apiError = clientErrorToApiError(error);
    log.info({ request_id: requestId, code: error.code, status: apiError.status }, 'refused malformed HTTP request');
    const body = JSON.stringify(errorBody(requestId, apiError));
    socket.end(
      `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
