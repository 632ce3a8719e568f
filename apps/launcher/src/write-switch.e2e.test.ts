import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { edgeTestRoutes } from './test-support/edge-test-routes.js';

describe('gateway edge, writes disabled (WRITES_ENABLED=false)', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline;
  let base: string;

  beforeAll(async () => {
    dataDir = await makeTempDir();
    const config = loadConfig({ SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1', WRITES_ENABLED: 'false' });
    // warn, not silent: a stop that hangs names the phase it waits on (shutdownPhases)
    sightline = await startSightline({ config, log: createLogger({ level: 'warn', service: 't' }), target: 'all', extraRoutes: [edgeTestRoutes] });
    base = sightline.url!;
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await dataDir?.remove();
  });

  it('answers every write route 404 write_disabled, before reading the body', async () => {
    for (const body of [JSON.stringify({ name: 'a' }), '{not json']) {
      const response = await fetch(`${base}/api/v1/_test/things`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(404);
      const answer = (await response.json()) as Record<string, string>;
      expect(answer).toMatchObject({ code: 'write_disabled', request_id: response.headers.get('x-request-id') });
    }
  });

  it('switches off the product’s write routes too: registration and key management', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/auth/send-otp'],
      ['POST', '/api/v1/auth/verify-otp'],
      ['POST', '/api/v1/keys'],
      ['DELETE', '/api/v1/keys/key_x'],
      ['PUT', '/api/v1/billing/subscription'],
    ]) {
      const response = await fetch(`${base}${path}`, { method, body: '{}', headers: { 'content-type': 'application/json' } });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('write_disabled');
    }
    // a read route still authenticates normally
    const list = await fetch(`${base}/api/v1/keys`);
    expect(list.status).toBe(401);
  });

  it('keeps reads working, including reads sent as POST', async () => {
    const search = await fetch(`${base}/api/v1/_test/search`, {
      method: 'POST',
      body: JSON.stringify({ q: 'x' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(search.status).toBe(200);
    expect((await fetch(`${base}/api/v1/openapi.yaml`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
