import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@sightline/testkit';
import { ClientRateLimit } from '../share/client-rate-limit.js';
import { loadDashboardDist } from './dashboard-dist.js';
import { NOT_BUILT_PAGE } from './html-shell.js';
import { webRoutes } from './web-routes.js';

async function distWith(manifest: unknown, files: Record<string, string> = {}) {
  const dir = await makeTempDir();
  await mkdir(path.join(dir.path, 'assets'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir.path, name), text);
  await writeFile(path.join(dir.path, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

describe('loadDashboardDist', () => {
  it('is undefined without a manifest (not built)', async () => {
    const dir = await makeTempDir();
    try {
      expect(await loadDashboardDist(dir.path)).toBeUndefined();
      expect(await loadDashboardDist(path.join(dir.path, 'missing'))).toBeUndefined();
    } finally {
      await dir.remove();
    }
  });

  it('refuses a manifest naming a path outside assets/, a missing file, or no entry', async () => {
    const files = { 'assets/app.1.js': 'x', 'assets/app.1.css': 'y', 'secret.txt': 's' };
    const listed = [
      { path: 'assets/app.1.js', bytes: 1 },
      { path: 'assets/app.1.css', bytes: 1 },
    ];
    const bad: Array<[unknown, RegExp]> = [
      [{ entry: 'assets/app.1.js', css: 'assets/app.1.css', files: [...listed, { path: 'assets/../secret.txt', bytes: 1 }] }, /unsafe path/],
      [{ entry: 'assets/app.1.js', css: 'assets/app.1.css', files: [...listed, { path: '/etc/passwd', bytes: 1 }] }, /unsafe path/],
      [{ entry: 'assets/app.1.js', css: 'assets/app.1.css', files: [...listed, { path: 'secret.txt', bytes: 1 }] }, /unsafe path/],
      [{ entry: 'assets/app.1.js', css: 'assets/app.1.css', files: [...listed, { path: 'assets/gone.js', bytes: 1 }] }, /ENOENT/],
      [{ entry: 'assets/app.2.js', css: 'assets/app.1.css', files: listed }, /does not list it/],
      [{ files: listed }, /not a dashboard manifest/],
    ];
    for (const [manifest, error] of bad) {
      const dir = await distWith(manifest, files);
      try {
        await expect(loadDashboardDist(dir.path), JSON.stringify(manifest)).rejects.toThrow(error);
      } finally {
        await dir.remove();
      }
    }
  });
});

describe('webRoutes without a build', () => {
  it('answers the pages 503 with the not-built page and the page headers; assets 404', async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(webRoutes, {
      dist: undefined,
      lookup: async () => ({
        site: { siteId: 1, timezone: 'UTC', weekStart: 1, goals: [] },
        domain: 'example.org',
        ownerAccountId: 1,
        plan: { reportsOpen: true, trackingActive: true },
      }),
      rateLimit: new ClientRateLimit(0),
    });
    try {
      for (const url of ['/', '/sites/1', '/share/abc']) {
        const answer = await app.inject({ method: 'GET', url });
        expect([answer.statusCode, answer.body], url).toEqual([503, NOT_BUILT_PAGE]);
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      }
      expect((await app.inject({ method: 'GET', url: '/assets/app.1.js' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});
