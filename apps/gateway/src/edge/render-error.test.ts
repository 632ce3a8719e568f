import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { createLogger } from '@sightline/telemetry';
import { registerErrorRenderer, sendError, toApiError } from './render-error.js';

function fastifyError(code: string, statusCode: number, message = 'framework says no'): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

describe('toApiError', () => {
  it('keeps an ApiError as thrown', () => {
    const error = new ApiError('goal_exists', 'A goal named Signup exists.');
    expect(toApiError(error)).toBe(error);
  });

  it('maps fastify body failures to catalogue codes', () => {
    expect(toApiError(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413)).code).toBe('payload_too_large');
    expect(toApiError(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415)).code).toBe('invalid_request');
    expect(toApiError(fastifyError('FST_ERR_CTP_EMPTY_JSON_BODY', 400)).message).toBe('The body is empty; send a JSON object.');
    expect(toApiError(fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400)).message).toBe('The body ended before its Content-Length.');
    expect(toApiError(fastifyError('ECONNRESET', 400)).code).toBe('invalid_request');
    expect(toApiError(Object.assign(new SyntaxError('Unexpected end'), { statusCode: 400 })).message).toBe('The body is not valid JSON.');
  });

  it('turns any other fastify 4xx into invalid_request, never a framework code', () => {
    const mapped = toApiError(fastifyError('FST_ERR_SOMETHING_NEW', 422, 'Something new went wrong'));
    expect([mapped.code, mapped.status, mapped.message]).toEqual(['invalid_request', 400, 'Something new went wrong']);
  });

  it('turns everything else into 500 internal with the catalogue message (no internals)', () => {
    for (const error of [
      new Error('password=hunter2'),
      fastifyError('FST_ERR_INTERNAL', 500, 'stack at /srv/x.ts'),
      'a string',
      undefined,
      { statusCode: 404 },
    ]) {
      const mapped = toApiError(error);
      expect([mapped.code, mapped.status, mapped.message]).toEqual(['internal', 500, 'Something failed on our side.']);
    }
  });
});

describe('the error renderer on a fastify instance', () => {
  async function build() {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }) });
    const app = Fastify({ loggerInstance: log as FastifyBaseLogger, genReqId: () => 'req_test1' }).withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorRenderer(app);
    app.get('/limited', async (request, reply) => sendError(request, reply, new ApiError('rate_limited', 'Budget gone.', { retryAfterSeconds: 120 })));
    app.get('/not-here', async (request, reply) =>
      sendError(request, reply, new ApiError('method_not_allowed', 'No.', { allow: ['GET', 'POST'] }), { hint: 'try POST' }),
    );
    app.get('/boom', async () => {
      throw new Error('db password=hunter2');
    });
    app.post('/things', { schema: { body: z.object({ name: z.string().max(3) }) } }, async () => ({ ok: true }));
    await app.ready();
    return { app, lines };
  }

  it('renders {code, error, request_id} with the catalogue status and the X-Request-ID header', async () => {
    const { app } = await build();
    const answer = await app.inject({ method: 'GET', url: '/limited' });
    expect(answer.statusCode).toBe(429);
    expect(answer.headers['x-request-id']).toBe('req_test1');
    expect(answer.headers['retry-after']).toBe('120');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.json()).toEqual({ code: 'rate_limited', error: 'Budget gone.', request_id: 'req_test1' });
    await app.close();
  });

  it('renders Allow and the extra fields it is given', async () => {
    const { app } = await build();
    const answer = await app.inject({ method: 'GET', url: '/not-here' });
    expect([answer.statusCode, answer.headers.allow]).toEqual([405, 'GET, POST']);
    expect(answer.json()).toEqual({ code: 'method_not_allowed', error: 'No.', request_id: 'req_test1', hint: 'try POST' });
    await app.close();
  });

  it('names the failing field of a schema violation', async () => {
    const { app } = await build();
    const answer = await app.inject({ method: 'POST', url: '/things', payload: { name: 'too long' } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().code).toBe('invalid_request');
    expect(answer.json().error).toMatch(/^Invalid body: name: /);
    await app.close();
  });

  it('answers an unexpected failure 500 internal, logging the cause only', async () => {
    const { app, lines } = await build();
    const answer = await app.inject({ method: 'GET', url: '/boom' });
    expect(answer.statusCode).toBe(500);
    expect(answer.body).not.toContain('hunter2');
    expect(answer.json()).toEqual({ code: 'internal', error: 'Something failed on our side.', request_id: 'req_test1' });
    expect(lines.filter((line) => line.includes('unexpected failure') && line.includes('req_test1'))).toHaveLength(1);
    await app.close();
  });
});
