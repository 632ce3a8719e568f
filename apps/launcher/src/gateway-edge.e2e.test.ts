import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { edgeTestRoutes } from './test-support/edge-test-routes.js';

const logLines: string[] = [];
const log = createLogger({ level: 'info', service: 'edge-test', destination: new Writable({ write: (c, _e, done) => (logLines.push(String(c)), done()) }) });

async function post(url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { response, body: (await response.json()) as Record<string, string> };
}

describe('gateway edge, writes enabled', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline;
  let base: string;

  beforeAll(async () => {
    dataDir = await makeTempDir();
    const config = loadConfig({ SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1', BODY_LIMIT_BYTES: '1024' });
    sightline = await startSightline({ config, log, target: 'all', extraRoutes: [edgeTestRoutes] });
    base = sightline.url!;
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await dataDir?.remove();
  });

  it('accepts a valid write', async () => {
    const { response, body } = await post(`${base}/api/v1/_test/things`, JSON.stringify({ name: 'a' }));
    expect(response.status).toBe(201);
    expect(body).toEqual({ name: 'a' });
  });

  it('answers malformed JSON with 400 invalid_request and the request id', async () => {
    const { response, body } = await post(`${base}/api/v1/_test/things`, '{"name": "a",');
    expect(response.status).toBe(400);
    expect(body.code).toBe('invalid_request');
    expect(body.request_id).toBe(response.headers.get('x-request-id'));
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'request_id']);
  });

  it('answers an empty JSON body and a non-JSON content type with 400 invalid_request', async () => {
    expect((await post(`${base}/api/v1/_test/things`, '')).body.code).toBe('invalid_request');
    const { response, body } = await post(`${base}/api/v1/_test/things`, 'name=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(400);
    expect(body.code).toBe('invalid_request');
  });

  it('answers a schema violation with 400 invalid_request naming the field', async () => {
    const { response, body } = await post(`${base}/api/v1/_test/things`, JSON.stringify({ name: 42 }));
    expect(response.status).toBe(400);
    expect(body.code).toBe('invalid_request');
    expect(body.error).toContain('name');
  });

  it('answers an oversized body with 413 payload_too_large', async () => {
    const { response, body } = await post(`${base}/api/v1/_test/things`, JSON.stringify({ name: 'x'.repeat(2_000) }));
    expect(response.status).toBe(413);
    expect(body.code).toBe('payload_too_large');
  });

  it('answers an unexpected failure with 500 internal and no internals, logging them instead', async () => {
    const response = await fetch(`${base}/api/v1/_test/crash`);
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ code: 'internal', request_id: response.headers.get('x-request-id') });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('secret.ts');
    expect(logLines.some((line) => line.includes('boom') && line.includes(response.headers.get('x-request-id')!))).toBe(true);
  });

  it('logs a caller-supplied X-Request-ID next to its own', async () => {
    const response = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'client-trace-77' } });
    const own = response.headers.get('x-request-id')!;
    expect(own).not.toBe('client-trace-77');
    expect(logLines.some((line) => line.includes('client-trace-77') && line.includes(own))).toBe(true);
  });

  it('answers 405 for a test route with the wrong method, listing the right one', async () => {
    const response = await fetch(`${base}/api/v1/_test/things`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('lists the routes it serves in the OpenAPI document', async () => {
    const text = await (await fetch(`${base}/api/v1/openapi.yaml`)).text();
    expect(text).toContain('/_test/things:');
  });
});
