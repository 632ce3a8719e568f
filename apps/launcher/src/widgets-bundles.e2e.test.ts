import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';

// GET /widgets/v1/{type}.js over HTTP, from a widgets build written into a temp dir in
// the manifest's shape (apps/widgets builds the real one): headers, ETag, encodings.
const TYPES = ['globe', 'live-users', 'map', 'countries'] as const;

describe('widget bundles: /widgets/v1/{type}.js', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let distDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline;
  const sources = new Map<string, string>();

  beforeAll(async () => {
    dataDir = await makeTempDir();
    distDir = await makeTempDir();
    const widgets: Record<string, { path: string; bytes: number; gzip: number; br: number }> = {};
    for (const type of TYPES) {
      const source = `(()=>{/* ${type} widget ${'x'.repeat(400)} */document.currentScript;})();\n`;
      const hash = createHash('sha256').update(source).digest('hex').slice(0, 8);
      const file = `${type}.${hash}.js`;
      const gz = gzipSync(source);
      const br = brotliCompressSync(source);
      await writeFile(path.join(distDir.path, file), source);
      await writeFile(path.join(distDir.path, `${file}.gz`), gz);
      await writeFile(path.join(distDir.path, `${file}.br`), br);
      widgets[type] = { path: file, bytes: source.length, gzip: gz.length, br: br.length };
      sources.set(type, source);
    }
    await writeFile(path.join(distDir.path, 'manifest.json'), JSON.stringify({ widgets }));
    const config = loadConfig({ SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1', WIDGETS_DIR: distDir.path });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await dataDir?.remove();
    await distDir?.remove();
  });

  const get = (file: string, headers: Record<string, string> = {}) =>
    fetch(`${sightline.url}/widgets/v1/${file}`, { headers: { 'accept-encoding': 'identity', ...headers } });

  it('serves each bundle from the manifest with the headers a host page needs', async () => {
    for (const type of TYPES) {
      const response = await get(`${type}.js`, { origin: 'https://blog.example' });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(sources.get(type));
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=86400');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('vary')).toBe('Accept-Encoding');
      expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(response.headers.get('content-encoding')).toBeNull();
    }
  });

  it('a strong ETag per bundle: If-None-Match answers 304 without a body; another bundle’s tag does not', async () => {
    const etags = await Promise.all(TYPES.map(async (type) => (await get(`${type}.js`)).headers.get('etag')!));
    expect(new Set(etags).size).toBe(4);
    const notModified = await get('map.js', { 'if-none-match': etags[2]! });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expect(notModified.headers.get('etag')).toBe(etags[2]);
    expect(notModified.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect((await get('map.js', { 'if-none-match': `${etags[0]}, ${etags[2]}` })).status).toBe(304);
    expect((await get('map.js', { 'if-none-match': etags[0]! })).status).toBe(200);
  });

  it('brotli or gzip by Accept-Encoding, from the build’s files', async () => {
    const viaBr = await fetch(`${sightline.url}/widgets/v1/globe.js`, { headers: { 'accept-encoding': 'gzip, br' } });
    // fetch decodes: the bytes are the source again, and the header names the coding sent
    expect(viaBr.headers.get('content-encoding')).toBe('br');
    expect(await viaBr.text()).toBe(sources.get('globe'));
    const viaGzip = await fetch(`${sightline.url}/widgets/v1/globe.js`, { headers: { 'accept-encoding': 'gzip, br;q=0' } });
    expect(viaGzip.headers.get('content-encoding')).toBe('gzip');
    expect(await viaGzip.text()).toBe(sources.get('globe'));
  });

  it('anything else under /widgets/v1/ is 404 not_found with the error object', async () => {
    for (const file of ['weather.js', 'globe', 'globe.mjs', 'globe.js.br', 'manifest.json', '..%2Fmanifest.json', 'GLOBE.js']) {
      const response = await get(file);
      const body = (await response.json()) as { code: string; request_id: string };
      expect([file, response.status, body.code]).toEqual([file, 404, 'not_found']);
      expect(body.request_id).toBe(response.headers.get('x-request-id'));
    }
  });
});
