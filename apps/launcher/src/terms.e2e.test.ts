import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';

// A person asked to accept the terms can read them: the sign-in mail links them,
// the OpenAPI document names them, and GET /terms answers (bundled page or redirect).
describe('the terms of service are reachable from everything that asks to accept them', () => {
  let sightline: RunningSightline | undefined;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>> | undefined;

  afterEach(async () => {
    await sightline?.stop();
    await dataDir?.remove();
  });

  async function start(env: Record<string, string>) {
    dataDir = await makeTempDir();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'https://stats.sightline-e2e.net',
      TERMS_VERSION: '2026-11-01',
      ...env,
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    return sightline.url!;
  }

  it('serves the bundled terms with their version, and the mail and OpenAPI link them', async () => {
    const base = await start({});
    const page = await fetch(`${base}/terms`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-request-id')).toMatch(/^req_/);
    const html = await page.text();
    expect(html).toContain('Version 2026-11-01.');
    expect(html).not.toContain('{{VERSION}}');

    const document = parseYaml(await (await fetch(`${base}/api/v1/openapi.yaml`)).text()) as {
      info: { termsOfService: string; description: string };
      components: { schemas: Record<string, unknown> };
      paths: Record<
        string,
        { post?: { requestBody: { content: { 'application/json': { schema: { properties: { accept_terms: { description: string } } } } } } } }
      >;
    };
    expect(document.info.termsOfService).toBe('https://stats.sightline-e2e.net/terms');
    expect(document.info.description).toContain('https://stats.sightline-e2e.net/terms');
    const acceptTerms = document.paths['/auth/verify-otp']!.post!.requestBody.content['application/json'].schema.properties.accept_terms;
    expect(acceptTerms.description).toContain('GET /terms');

    const sent = await fetch(`${base}/api/v1/auth/send-otp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'reader@mail.sightline-e2e.net' }),
    });
    expect(sent.status).toBe(200);
    const mailDir = path.join(dataDir!.path, 'mail');
    const files = await readdir(mailDir);
    expect(files).toHaveLength(1);
    const mail = await readFile(path.join(mailDir, files[0]!), 'utf8');
    expect(mail).toContain('(version 2026-11-01):');
    expect(mail).toContain('https://stats.sightline-e2e.net/terms');
  });

  it('redirects /terms to TERMS_URL and links TERMS_URL everywhere when the operator sets it', async () => {
    const base = await start({ TERMS_URL: 'https://legal.sightline-e2e.net/terms-v3' });
    const page = await fetch(`${base}/terms`, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('https://legal.sightline-e2e.net/terms-v3');
    const document = parseYaml(await (await fetch(`${base}/api/v1/openapi.yaml`)).text()) as { info: { termsOfService: string } };
    expect(document.info.termsOfService).toBe('https://legal.sightline-e2e.net/terms-v3');
    await fetch(`${base}/api/v1/auth/send-otp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'reader@mail.sightline-e2e.net' }),
    });
    const files = await readdir(path.join(dataDir!.path, 'mail'));
    expect(await readFile(path.join(dataDir!.path, 'mail', files[0]!), 'utf8')).toContain('https://legal.sightline-e2e.net/terms-v3');
  });
});
