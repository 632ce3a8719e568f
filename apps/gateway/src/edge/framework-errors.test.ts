import { describe, expect, it } from 'vitest';
import type { FastifyError } from 'fastify';
import { clientErrorToApiError, frameworkErrorToApiError } from './framework-errors.js';

// The whole path (router, Node's parser, raw socket) is covered over HTTP by
// apps/launcher/src/edge-fuzz.e2e.test.ts; here, the mapping table.
const errno = (code: string) => Object.assign(new Error(code), { code }) as NodeJS.ErrnoException;

describe('framework and client errors map into the catalogue', () => {
  it('router failures are 400 invalid_request with a message saying what was wrong', () => {
    const badUrl = frameworkErrorToApiError({ code: 'FST_ERR_BAD_URL' } as FastifyError);
    const longParam = frameworkErrorToApiError({ code: 'FST_ERR_MAX_PARAM_LENGTH' } as FastifyError);
    expect([badUrl.code, badUrl.status, badUrl.message]).toEqual(['invalid_request', 400, 'The path is not valid percent-encoding.']);
    expect([longParam.code, longParam.status]).toEqual(['invalid_request', 400]);
    expect(longParam.message).toContain('200 characters');
    expect(frameworkErrorToApiError({ code: 'FST_ERR_ASYNC_CONSTRAINT' } as FastifyError).code).toBe('invalid_request');
  });

  it('parser refusals: oversized headers are 413, everything else 400', () => {
    expect(clientErrorToApiError(errno('HPE_HEADER_OVERFLOW')).status).toBe(413);
    expect(clientErrorToApiError(errno('HPE_HEADER_OVERFLOW')).message).toBe('The request headers are too large.');
    expect(clientErrorToApiError(errno('HPE_INVALID_METHOD')).message).toBe('Unknown HTTP method.');
    for (const code of ['ERR_HTTP_REQUEST_TIMEOUT', 'HPE_INVALID_HEADER_TOKEN', 'HPE_INVALID_CONTENT_LENGTH', 'SOMETHING_ELSE']) {
      expect(clientErrorToApiError(errno(code)).status, code).toBe(400);
      expect(clientErrorToApiError(errno(code)).code, code).toBe('invalid_request');
    }
  });
});
