import { describe, expect, it, vi } from 'vitest';
import { captureLog } from '@sightline/testkit';
import { requestLoggerFactory, RequestLogger } from './request-logger.js';

/** The gateway's real logger at `info`; `lines()` parsed as they stand. */
function capturing() {
  const { log, records } = captureLog('gateway', 'info');
  return { log, lines: records };
}

describe('RequestLogger (request.log, made on first use)', () => {
  it('makes no pino child for a request that logs nothing at an enabled level', () => {
    const { log, lines } = capturing();
    const child = vi.spyOn(log, 'child');
    const requestLog = new RequestLogger(log, { request_id: 'req_a' });
    requestLog.debug({ status: 202 }, 'request');
    requestLog.trace('nothing');
    expect(child).not.toHaveBeenCalled();
    expect(lines()).toEqual([]);
    expect(requestLog.level).toBe('info');
  });

  it('logs a line as the child would: the bindings, the parent’s own fields, redaction', () => {
    const { log, lines } = capturing();
    const child = vi.spyOn(log, 'child');
    const requestLog = new RequestLogger(log, { request_id: 'req_b' });
    requestLog.info({ headers: { authorization: 'Bearer sl_secret' }, status: 400 }, 'request');
    requestLog.warn('second line');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines()).toHaveLength(2);
    expect(lines()[0]).toMatchObject({
      level: 30,
      service: 'gateway',
      request_id: 'req_b',
      status: 400,
      msg: 'request',
      headers: { authorization: '[redacted]' },
    });
    expect(lines()[1]).toMatchObject({ level: 40, request_id: 'req_b', msg: 'second line' });
  });

  it('honours a level set on it, and makes children that keep its bindings', () => {
    const { log, lines } = capturing();
    const requestLog = new RequestLogger(log, { request_id: 'req_c' });
    requestLog.level = 'debug';
    requestLog.debug('now shown');
    requestLog.child({ step: 'auth' }).info('from a child');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 20, request_id: 'req_c', msg: 'now shown' }),
      expect.objectContaining({ level: 30, request_id: 'req_c', step: 'auth', msg: 'from a child' }),
    ]);
  });

  it('leaves a route with its own log level to pino’s child at once', () => {
    const { log, lines } = capturing();
    const made = requestLoggerFactory(log, { request_id: 'req_d' }, { level: 'debug' });
    expect(made).not.toBeInstanceOf(RequestLogger);
    made.debug('route debug');
    expect(lines()).toEqual([expect.objectContaining({ level: 20, request_id: 'req_d' })]);
    expect(requestLoggerFactory(log, { request_id: 'req_e' }, {})).toBeInstanceOf(RequestLogger);
  });
});
