import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, type DashboardManifest } from '../build.js';

// The build's output is a seam (the gateway serves it from the manifest): hold its shape.
describe('buildDashboard', () => {
  let outDir: string;
  let manifest: DashboardManifest;
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'dashboard-build-'));
    manifest = await buildDashboard({ outDir });
  }, 120_000);
  afterAll(() => rm(outDir, { recursive: true, force: true }));

  it('writes hashed assets named by the manifest, which lists every file', async () => {
    expect(manifest.entry).toMatch(/^assets\/app\.[A-Z0-9]{8}\.js$/);
    expect(manifest.css).toMatch(/^assets\/app\.[A-Z0-9]{8}\.css$/);
    const paths = manifest.files.map((f) => f.path);
    expect(paths).toContain(manifest.entry);
    expect(paths).toContain(manifest.css);
    expect(paths.some((p) => /^assets\/WorldMap\.[A-Z0-9]{8}\.js$/.test(p))).toBe(true);
    const onDisk = (await readdir(join(outDir, 'assets'))).filter((f) => !f.endsWith('.gz') && !f.endsWith('.br'));
    expect(onDisk.map((f) => `assets/${f}`).sort()).toEqual([...paths].sort());
    expect(JSON.parse(await readFile(join(outDir, 'manifest.json'), 'utf8'))).toEqual(manifest);
  });

  it('gives each file .gz and .br siblings holding the same bytes, sizes as listed', async () => {
    for (const file of manifest.files) {
      const body = await readFile(join(outDir, file.path));
      const gz = await readFile(join(outDir, `${file.path}.gz`));
      const br = await readFile(join(outDir, `${file.path}.br`));
      expect([body.length, gz.length, br.length]).toEqual([file.bytes, file.gzip, file.br]);
      expect(gunzipSync(gz).equals(body)).toBe(true);
      expect(brotliDecompressSync(br).equals(body)).toBe(true);
    }
  });

  it('ships no eval and loads nothing from another host', async () => {
    for (const file of manifest.files) {
      const text = await readFile(join(outDir, file.path), 'utf8');
      expect(text, file.path).not.toMatch(/\beval\(|new Function\(/);
      // the only absolute URLs are the credits' links and XML namespaces, never something loaded
      for (const url of text.match(/https?:\/\/[a-z0-9.-]+\.[a-z]{2,}[^"'\s)`]*/gi) ?? [])
        expect(url, file.path).toMatch(/^https:\/\/(db-ip\.com|creativecommons\.org\/licenses\/by\/4\.0\/)$|^http:\/\/www\.w3\.org\//);
    }
  });
});
