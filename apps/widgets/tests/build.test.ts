import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidgets, WIDGET_BUDGETS_BR, WIDGET_TYPES, type WidgetsManifest } from '../build.js';

// The build's output is a seam (the gateway serves /widgets/v1/{type}.js from the manifest): hold its shape.
describe('buildWidgets', () => {
  let outDir: string;
  let manifest: WidgetsManifest;
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'widgets-build-'));
    manifest = await buildWidgets({ outDir });
  }, 120_000);
  afterAll(() => rm(outDir, { recursive: true, force: true }));

  it('writes one hashed script per widget, named by the manifest', async () => {
    expect(Object.keys(manifest.widgets).sort()).toEqual([...WIDGET_TYPES].sort());
    for (const type of WIDGET_TYPES) expect(manifest.widgets[type].path).toMatch(new RegExp(`^${type}\\.[A-Z0-9]{8}\\.js$`));
    const scripts = (await readdir(outDir)).filter((f) => f.endsWith('.js'));
    expect(scripts.sort()).toEqual(WIDGET_TYPES.map((t) => manifest.widgets[t].path).sort());
    expect(JSON.parse(await readFile(join(outDir, 'manifest.json'), 'utf8'))).toEqual(manifest);
  });

  it('gives each script .gz and .br siblings holding the same bytes, sizes as listed', async () => {
    for (const file of Object.values(manifest.widgets)) {
      const body = await readFile(join(outDir, file.path));
      const gz = await readFile(join(outDir, `${file.path}.gz`));
      const br = await readFile(join(outDir, `${file.path}.br`));
      expect([body.length, gz.length, br.length]).toEqual([file.bytes, file.gzip, file.br]);
      expect(gunzipSync(gz).equals(body)).toBe(true);
      expect(brotliDecompressSync(br).equals(body)).toBe(true);
    }
  });

  it('keeps every widget within its brotli budget (issue 32)', () => {
    for (const type of WIDGET_TYPES)
      expect(manifest.widgets[type].br, `${type}: ${manifest.widgets[type].br} B brotli`).toBeLessThanOrEqual(WIDGET_BUDGETS_BR[type]);
    expect(WIDGET_BUDGETS_BR).toEqual({ 'live-users': 5120, countries: 5120, map: 51200, globe: 20480 });
  });

  it('ships classic self-contained scripts: no module syntax, no eval, nothing loaded from a host', async () => {
    for (const file of Object.values(manifest.widgets)) {
      const text = await readFile(join(outDir, file.path), 'utf8');
      expect(text.startsWith('(()=>{') || text.startsWith('"use strict";(()=>{'), file.path).toBe(true);
      expect(text, file.path).not.toMatch(/\beval\(|new Function\(|\bimport\(|^import |^export /m);
      // no <style> on the host page and no data: image (strict CSPs refuse both): cobe is patched at build time
      expect(text, file.path).not.toMatch(/document\.head|new Image\b|data:image/);
      for (const url of text.match(/https?:\/\/[a-z0-9.-]+\.[a-z]{2,}[^"'\s)`]*/gi) ?? [])
        expect(url, file.path).toMatch(/^https:\/\/db-ip\.com$|^http:\/\/www\.w3\.org\/2000\/svg$/);
    }
  });

  it('puts the country outlines in the map only, and the WebGL renderer in the globe only', async () => {
    const text = async (type: (typeof WIDGET_TYPES)[number]) => readFile(join(outDir, manifest.widgets[type].path), 'utf8');
    expect((await text('map')).match(/\["[A-Z]{0,2}","M/g)?.length).toBeGreaterThan(170);
    expect(await text('globe')).toContain('webgl');
    for (const type of ['live-users', 'countries'] as const) expect(await text(type)).not.toMatch(/webgl|\["DE","M/);
  });
});
