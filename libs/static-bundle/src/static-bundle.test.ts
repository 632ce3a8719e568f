import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeTempDir } from '@sightline/testkit';
import { precompress, readBuiltFile, readManifest } from './index.js';

describe('static-bundle', () => {
  it('writes .gz and .br siblings that decompress to the file, and returns the three sizes', async () => {
    const { path: dir, remove } = await makeTempDir('static-bundle-');
    onTestFinished(remove);
    const file = path.join(dir, 'app.js');
    const body = 'console.log("sightline");\n'.repeat(200);
    await writeFile(file, body);
    const sizes = await precompress(file);
    const gz = await readFile(`${file}.gz`);
    const br = await readFile(`${file}.br`);
    expect(sizes).toEqual({ bytes: Buffer.byteLength(body), gzip: gz.length, br: br.length });
    expect(gunzipSync(gz).toString()).toBe(body);
    expect(brotliDecompressSync(br).toString()).toBe(body);
    expect(sizes.br).toBeLessThan(sizes.bytes / 10);
    const read = await readBuiltFile(file);
    expect(read.identity.toString()).toBe(body);
    expect(read.gzip?.equals(gz)).toBe(true);
    expect(read.br?.equals(br)).toBe(true);
  });

  it('reads a file without siblings, and refuses a missing file', async () => {
    const { path: dir, remove } = await makeTempDir('static-bundle-');
    onTestFinished(remove);
    await writeFile(path.join(dir, 'plain.css'), 'a{}');
    expect(await readBuiltFile(path.join(dir, 'plain.css'))).toEqual({ identity: Buffer.from('a{}'), gzip: undefined, br: undefined });
    await expect(readBuiltFile(path.join(dir, 'absent.js'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads the manifest, undefined when the build is absent, and throws on a broken one', async () => {
    const { path: dir, remove } = await makeTempDir('static-bundle-');
    onTestFinished(remove);
    expect(await readManifest(dir)).toBeUndefined();
    await writeFile(path.join(dir, 'manifest.json'), '{"entry":"assets/app.1.js"}');
    expect(await readManifest(dir)).toEqual({ entry: 'assets/app.1.js' });
    await writeFile(path.join(dir, 'manifest.json'), '{"entry":');
    await expect(readManifest(dir)).rejects.toThrow(SyntaxError);
    const notADir = path.join(dir, 'manifest.json');
    await expect(readManifest(notADir)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
